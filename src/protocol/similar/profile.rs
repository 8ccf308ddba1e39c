//! A text's profile: its weighted tokens (for the overlap score) and its values (for telling an
//! update from a duplicate), computed once per text.
//!
//! - **ASCII words** are folded to lowercase and lightly stemmed; their weight comes from
//!   [`lexicon`] (stopwords 0, frame words 0.3, common words 0.5, else by length up to 1.2).
//! - **Compounds** (`node20`, `src/main.rs`, `python3.12`, `localhost:8080`) count by their
//!   parts (letters, and digits with their dots) and are also kept whole as a value.
//! - **CJK runs**: Han and Hangul give character bigrams (1.0 when both characters are content,
//!   0.25 when one is grammar or a frame word, 0.05 when both are) and content unigrams (0.3);
//!   a katakana run is one word (a loanword: `テスト`, `デプロイ`); hiragana is grammar and gives
//!   no token.
//! - **Values**: numbers, versions, dates, paths, URLs, identifiers, backtick and quoted spans,
//!   and names (a capitalised word inside a sentence, an acronym, an ASCII word in CJK text),
//!   each with the word before it as its label (`Node` for `Node 20`).
#![forbid(unsafe_code)]

use unicode_normalization::UnicodeNormalization;

use super::lexicon::{self, stem};
use super::scan::{self, Kind, Script};

/// FNV-1a, 64 bits: tokens are compared by hash, and a collision between two short strings of
/// one text pair is vanishingly rare (it would only blur one token's weight).
pub(super) fn hash(s: &str) -> u64 {
  s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
    (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
  })
}

/// A weighted token.
#[derive(Debug, Clone)]
pub(super) struct Tok {
  pub(super) key: u64,
  pub(super) weight: f32,
  /// As written (for reasons).
  pub(super) shown: String,
}

/// What kind of value a value is, for the reason an update gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ValueKind {
  Number,
  Version,
  Port,
  Date,
  Path,
  Url,
  Ident,
  Code,
  Quoted,
  Name,
}

impl ValueKind {
  /// The kind in words, for a reason.
  pub(super) fn describe(self) -> &'static str {
    match self {
      ValueKind::Number => "a number",
      ValueKind::Version => "a version",
      ValueKind::Port => "a port",
      ValueKind::Date => "a date",
      ValueKind::Path => "a path",
      ValueKind::Url => "a URL",
      ValueKind::Ident => "an identifier",
      ValueKind::Code => "code",
      ValueKind::Quoted => "a quoted name",
      ValueKind::Name => "a name",
    }
  }

  /// Kinds that one value may be changed into: a number into a version, a path into a URL, a
  /// name into an identifier; a date into another date only.
  pub(super) fn group(self) -> u8 {
    match self {
      ValueKind::Number | ValueKind::Version | ValueKind::Port => 0,
      ValueKind::Date => 1,
      ValueKind::Path | ValueKind::Url => 2,
      ValueKind::Ident | ValueKind::Code | ValueKind::Quoted | ValueKind::Name => 3,
    }
  }
}

/// A value of a text: what an update changes.
#[derive(Debug, Clone)]
pub(super) struct Value {
  pub(super) key: u64,
  pub(super) kind: ValueKind,
  pub(super) shown: String,
  /// The word before it: its key and how it is written.
  pub(super) label: Option<(u64, String)>,
}

/// Everything [`super::compare`] reads of one text.
#[derive(Debug, Clone, Default)]
pub(super) struct Parts {
  /// Sorted by key, one per key (the highest weight).
  pub(super) toks: Vec<Tok>,
  pub(super) total: f32,
  pub(super) values: Vec<Value>,
  /// The keys of `values`, sorted.
  pub(super) value_keys: Vec<u64>,
  /// Whether the text says "not" (in any of the three languages).
  pub(super) negated: bool,
}

/// Labels after which a bare number is a version (`Node 20`, `Python 3`), or a port.
const VERSIONED: &[&str] = &[
  "node",
  "nodejs",
  "python",
  "java",
  "jdk",
  "go",
  "golang",
  "ruby",
  "rust",
  "php",
  "postgres",
  "postgresql",
  "mysql",
  "redis",
  "version",
  "ver",
  "react",
  "vue",
  "angular",
  "next",
  "nextjs",
  "typescript",
  "ts",
  "ios",
  "android",
  "ubuntu",
  "debian",
  "kotlin",
  "swift",
  "gradle",
  "es",
  "pnpm",
  "npm",
  "yarn",
  "bun",
  "deno",
  "django",
  "rails",
  "spring",
  "版本",
  "バージョン",
];
const PORT_LABELS: &[&str] = &["port", "ports", "端口", "ポート", "ポート番号"];

/// The parts of `text`.
pub(super) fn build(text: &str) -> Parts {
  let norm: String = text.nfkc().collect();
  let cjk = norm.chars().filter(|c| scan::script(*c).is_some()).count();
  let latin = norm.chars().filter(char::is_ascii_alphabetic).count();
  let mut b = Builder {
    text: &norm,
    cjk_text: cjk > latin,
    ..Builder::default()
  };
  for piece in scan::pieces(&norm) {
    let s = &norm[piece.span.clone()];
    match piece.kind {
      Kind::Ascii => b.ascii(s, piece.span.start, piece.span.end),
      Kind::Cjk => b.cjk(s),
      Kind::Code => b.value(ValueKind::Code, s.trim(), None),
      Kind::Quoted => b.value(ValueKind::Quoted, s.trim(), None),
    }
  }
  b.finish()
}

#[derive(Default)]
struct Builder<'a> {
  text: &'a str,
  /// More CJK than Latin letters: an ASCII word here is a name (a tool, a person, a product).
  cjk_text: bool,
  toks: Vec<Tok>,
  values: Vec<Value>,
  label: Option<(u64, String)>,
  negated: bool,
}

impl Builder<'_> {
  fn tok(&mut self, key: &str, weight: f32, shown: &str) {
    self.toks.push(Tok {
      key: hash(key),
      weight,
      shown: shown.to_string(),
    });
  }

  fn value(&mut self, kind: ValueKind, shown: &str, key: Option<u64>) {
    if shown.is_empty() {
      return;
    }
    let key = key.unwrap_or_else(|| hash(&shown.to_ascii_lowercase()));
    let label = self.label.clone();
    self.values.push(Value {
      key,
      kind,
      shown: shown.to_string(),
      label,
    });
  }

  /// An ASCII run at `start..end` of the text.
  fn ascii(&mut self, raw: &str, start: usize, end: usize) {
    let lower = raw.to_ascii_lowercase();
    match classify(&lower, raw) {
      Some(kind) => self.compound(raw, &lower, kind),
      None => self.words(raw, &lower, start, end),
    }
  }

  /// A run of letters (and hyphens): one word, or the words of `built-in`.
  fn words(&mut self, raw: &str, lower: &str, start: usize, end: usize) {
    let sentence_start = self.text[..start]
      .trim_end()
      .chars()
      .next_back()
      .is_none_or(|c| {
        matches!(
          c,
          '.' | '!' | '?' | ':' | ';' | '\n' | '-' | '*' | '(' | '>'
        )
      });
    let negated_contraction =
      lower.ends_with('n') && ["'t", "’t"].iter().any(|t| self.text[end..].starts_with(t));
    for (word, shown) in lower.split('-').zip(raw.split('-')) {
      if word.is_empty() {
        continue;
      }
      self.negated |= lexicon::is_negation(word) || negated_contraction;
      let weight = lexicon::word_weight(word);
      let key = stem(word);
      self.tok(key, weight, shown);
      let acronym = shown.len() >= 2 && shown.bytes().all(|b| b.is_ascii_uppercase());
      let capital = shown.starts_with(|c: char| c.is_ascii_uppercase()) && !sentence_start;
      if weight >= 0.5 && (acronym || capital || self.cjk_text) {
        self.value(ValueKind::Name, shown, Some(hash(key)));
      }
      if weight >= 0.5 {
        self.label = Some((hash(key), shown.to_string()));
      }
    }
  }

  /// A number, version, path, identifier…: weighted by its parts, kept whole as a value.
  fn compound(&mut self, raw: &str, lower: &str, kind: ValueKind) {
    let single = matches!(
      kind,
      ValueKind::Number | ValueKind::Version | ValueKind::Date
    );
    let label_word = self.label.as_ref().map(|(_, w)| w.to_ascii_lowercase());
    let kind = match (kind, label_word.as_deref()) {
      (ValueKind::Number, Some(l)) if PORT_LABELS.contains(&l) => ValueKind::Port,
      (ValueKind::Number, Some(l)) if VERSIONED.contains(&l) => ValueKind::Version,
      _ => kind,
    };
    if single {
      self.tok(lower, lexicon::number_weight(lower), raw);
      self.value(kind, raw, None);
      return;
    }
    // Short letter-digit names (`s3`, `e2e`, `k8s`, `vue3`) are one word, not a letter and a
    // digit.
    if lower.len() <= 4 && lower.bytes().all(|b| b.is_ascii_alphanumeric()) {
      self.tok(lower, lexicon::word_weight(lower).max(0.8), raw);
      self.value(kind, raw, None);
      self.label = Some((hash(lower), raw.to_string()));
      return;
    }
    self.value(kind, raw, None);
    for (part, shown) in parts(lower).into_iter().zip(parts(raw)) {
      if part.starts_with(|c: char| c.is_ascii_digit()) {
        self.tok(part, lexicon::number_weight(part), shown);
      } else {
        let weight = lexicon::word_weight(part);
        self.tok(stem(part), weight, shown);
        if weight >= 0.5 {
          self.label = Some((hash(stem(part)), shown.to_string()));
        }
      }
    }
  }

  /// A run of CJK characters.
  fn cjk(&mut self, run: &str) {
    self.negated |= lexicon::has_cjk_negation(run);
    let chars: Vec<(char, Option<Script>)> = run.chars().map(|c| (c, scan::script(c))).collect();
    let weak = weak_mask(run, &chars);
    let mut i = 0;
    while i < chars.len() {
      let script = chars[i].1;
      let len = chars[i..].iter().take_while(|c| c.1 == script).count();
      let (sub, weak) = (&chars[i..i + len], &weak[i..i + len]);
      match script {
        Some(Script::Katakana) => self.katakana(sub, weak),
        Some(Script::Han | Script::Hangul) => self.grams(sub, weak),
        _ => {}
      }
      i += len;
    }
  }

  /// A katakana run: one word.
  fn katakana(&mut self, sub: &[(char, Option<Script>)], weak: &[bool]) {
    let word: String = sub.iter().map(|c| c.0).collect();
    let weight = match (weak.iter().all(|w| *w), sub.len()) {
      (true, _) => 0.3,
      (false, 0 | 1) => 0.1,
      (false, 2) => 0.6,
      _ => 1.0,
    };
    self.tok(&word, weight, &word);
    if weight >= 0.5 {
      self.label = Some((hash(&word), word));
    }
  }

  /// A Han or Hangul run: content unigrams and all bigrams.
  fn grams(&mut self, sub: &[(char, Option<Script>)], weak: &[bool]) {
    let mut buf = [0u8; 8];
    for (c, w) in sub.iter().zip(weak) {
      if !w && c.1 == Some(Script::Han) {
        let s = c.0.encode_utf8(&mut buf);
        self.toks.push(Tok {
          key: hash(s),
          weight: 0.3,
          shown: s.to_string(),
        });
      }
    }
    for (i, pair) in sub.windows(2).enumerate() {
      let gram: String = pair.iter().map(|c| c.0).collect();
      let weight = match (weak[i], weak[i + 1]) {
        (false, false) => 1.0,
        (true, true) => 0.05,
        _ => 0.25,
      };
      self.tok(&gram, weight, &gram);
      if weight >= 1.0 {
        self.label = Some((hash(&gram), gram));
      }
    }
  }

  fn finish(mut self) -> Parts {
    self
      .toks
      .sort_by(|a, b| a.key.cmp(&b.key).then(b.weight.total_cmp(&a.weight)));
    self.toks.dedup_by_key(|t| t.key);
    let total = self.toks.iter().map(|t| t.weight).sum();
    let mut value_keys: Vec<u64> = self.values.iter().map(|v| v.key).collect();
    value_keys.sort_unstable();
    Parts {
      toks: self.toks,
      total,
      values: self.values,
      value_keys,
      negated: self.negated,
    }
  }
}

/// Which characters of a CJK run are grammar or frame rather than content: hiragana, Chinese
/// particles, and the characters of a frame word (`用户`, `喜欢`, `ユーザー`, `使う`).
fn weak_mask(run: &str, chars: &[(char, Option<Script>)]) -> Vec<bool> {
  let mut weak: Vec<bool> = chars
    .iter()
    .map(|(c, s)| *s == Some(Script::Hiragana) || lexicon::is_zh_stop(*c))
    .collect();
  let mut cover = 0;
  for (i, (at, _)) in run.char_indices().enumerate() {
    cover = cover.max(i + lexicon::cjk_frame_at(&run[at..]));
    if i < cover {
      weak[i] = true;
    }
  }
  weak
}

/// The kind of value an ASCII run is, or `None` for a plain word (letters, maybe hyphenated).
fn classify(lower: &str, raw: &str) -> Option<ValueKind> {
  let b = lower.as_bytes();
  let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
  let letters = b.iter().filter(|c| c.is_ascii_alphabetic()).count();
  if lower.contains("://") {
    return Some(ValueKind::Url);
  }
  if is_date(b) {
    return Some(ValueKind::Date);
  }
  if lower.contains(['/', '\\']) || lower.starts_with('~') || dotfile(b) {
    return Some(ValueKind::Path);
  }
  if is_version(b) {
    return Some(ValueKind::Version);
  }
  if digits == b.len() {
    return Some(ValueKind::Number);
  }
  if digits > 0 && b[0].is_ascii_digit() && letters <= 3 && b.iter().all(u8::is_ascii_alphanumeric)
  {
    // A quantity with its unit: 30s, 512mb, 4gb, 2x.
    return Some(ValueKind::Number);
  }
  let camel = raw
    .as_bytes()
    .windows(2)
    .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
  let dotted = lower.split('.').filter(|p| p.len() >= 2).count() >= 2;
  let marked = lower.contains(['_', '@', '#', '=', ':', '+', '%']);
  (digits > 0 || camel || dotted || marked).then_some(ValueKind::Ident)
}

/// `2024-05-01`, `2024/5/1`, `2024-05`.
fn is_date(b: &[u8]) -> bool {
  let groups: Vec<&[u8]> = b.split(|c| matches!(c, b'-' | b'/' | b'.')).collect();
  let numeric = groups
    .iter()
    .all(|g| !g.is_empty() && g.iter().all(u8::is_ascii_digit));
  numeric
    && (2..=3).contains(&groups.len())
    && groups[0].len() == 4
    && groups[1..].iter().all(|g| g.len() <= 2)
}

/// `1.2.3`, `v20`, `v3.11`, `3.11`.
fn is_version(b: &[u8]) -> bool {
  let body = b.strip_prefix(b"v").unwrap_or(b);
  let numeric = !body.is_empty()
    && body[0].is_ascii_digit()
    && body.iter().all(|c| c.is_ascii_digit() || *c == b'.')
    && !body.ends_with(b".");
  numeric && (body.contains(&b'.') || body.len() < b.len())
}

/// `.env`, `.nvmrc`: a file named by a leading dot.
fn dotfile(b: &[u8]) -> bool {
  b.len() > 2 && b[0] == b'.' && b[1].is_ascii_alphabetic()
}

/// The parts of a compound: runs of letters, and runs of digits with the dots between them.
fn parts(s: &str) -> Vec<&str> {
  let b = s.as_bytes();
  let mut out = Vec::new();
  let mut i = 0;
  while i < b.len() {
    let start = i;
    if b[i].is_ascii_alphabetic() {
      while i < b.len() && b[i].is_ascii_alphabetic() {
        i += 1;
      }
    } else if b[i].is_ascii_digit() {
      while i < b.len()
        && (b[i].is_ascii_digit() || (b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)))
      {
        i += 1;
      }
    } else {
      i += 1;
      continue;
    }
    out.push(&s[start..i]);
  }
  out
}

#[cfg(test)]
mod tests {
  use super::*;

  fn kinds(text: &str) -> Vec<(ValueKind, String)> {
    build(text)
      .values
      .into_iter()
      .map(|v| (v.kind, v.shown))
      .collect()
  }

  #[test]
  fn values_are_classified_by_shape_and_label() {
    use ValueKind::*;
    let got =
      kinds("Uses Node 20 on port 8080, pinned 2024-05-01 in ~/.nvmrc; `make ship` via v1.2.3");
    let want = [
      (Name, "Node"),
      (Version, "20"),
      (Port, "8080"),
      (Date, "2024-05-01"),
      (Path, "~/.nvmrc"),
      (Code, "make ship"),
      (Version, "v1.2.3"),
    ];
    let want: Vec<(ValueKind, String)> = want.iter().map(|(k, s)| (*k, s.to_string())).collect();
    assert_eq!(got, want);
  }

  #[test]
  fn compounds_count_by_their_parts() {
    let p = build("python3.12");
    let shown: Vec<&str> = p.toks.iter().map(|t| t.shown.as_str()).collect();
    assert!(
      shown.contains(&"python") && shown.contains(&"3.12"),
      "{shown:?}"
    );
  }

  #[test]
  fn cjk_frame_words_weigh_little() {
    let p = build("用户喜欢简洁的回答");
    let weight = |s: &str| p.toks.iter().find(|t| t.shown == s).map(|t| t.weight);
    assert_eq!(weight("简洁"), Some(1.0));
    assert_eq!(weight("回答"), Some(1.0));
    assert_eq!(weight("用户"), Some(0.05));
    assert_eq!(weight("户喜"), Some(0.05));
    assert_eq!(weight("欢简"), Some(0.25));
  }

  #[test]
  fn negation_is_seen_in_each_language() {
    assert!(build("Don't use yarn").negated);
    assert!(build("Never push to main").negated);
    assert!(!build("Push to main").negated);
    assert!(build("不要用 yarn").negated);
    assert!(build("yarn は使わない").negated);
  }

  #[test]
  fn fullwidth_text_is_folded() {
    let a = build("ｐｎｐｍ を使う");
    assert!(a.toks.iter().any(|t| t.shown == "pnpm"));
  }
}
