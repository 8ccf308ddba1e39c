//! A text's profile: its weighted tokens (for the overlap score) and its values (for telling an
//! update from a duplicate), computed once per text, in one pass over the NFKC-folded text.
//!
//! - **ASCII words** are folded to lowercase and lightly stemmed; a word of a synonym group is
//!   the group's token; their weights come from [`lexicon`] and [`synonyms`] (in a text with
//!   CJK, an ASCII word is a name or code and weighs at least 0.8, whatever it is in English).
//! - **Compounds** (`node20`, `src/main.rs`, `python3.12`, `localhost:8080`) count by their
//!   parts (letters, and digits with their dots) and are also kept whole as a value.
//! - **Code and quoted spans** are a token (weight 1.0) and a value; their words count too.
//! - **CJK runs**: synonym-group words first (longest match), then Han and Hangul give
//!   character bigrams (0.7 when both characters are content, 0.35 at the edge of a group word,
//!   0.25 with one grammar or frame character, 0.05 with two) and content unigrams (0.25); a
//!   katakana run is one word (a loanword: `テスト`, `デプロイ`); hiragana is grammar and gives
//!   no token.
//! - **Values**: numbers (also `two`, `三周`), versions, ports, dates, paths, URLs, identifiers,
//!   code and quoted spans, and names (a capitalised word inside a sentence, an acronym, any
//!   ASCII word in a text with CJK), each with the content word before it as its label (`Node`
//!   for `Node 20`).
//! - **Flags**: whether the text says "not" (`not`, `never`, `don't`, `不`, `禁止`, `ない`) and
//!   whether it says that something changed (`now`, `moved`, `changed to`, `改为`, `に変更`).
//! - **Phrases**: the tokens in the order of the text, each with its phrase (a run of content
//!   words that a grammar or frame word or punctuation ends; `的`, `の` and a possessive `'s` do
//!   not), whether its phrase follows a copula or the topic marker `は`, and whether it is part
//!   of a value or an amount; and the phrases that hold a verb of an attribute with many values
//!   (`accepts`, `支持`, `対応`): what [`super::slots`] reads the subject and the value slot from.
#![forbid(unsafe_code)]

use std::borrow::Cow;

use compact_str::CompactString;
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

use super::lexicon::{self, stem};
use super::scan::{self, Kind, Script};
use super::synonyms;

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
  /// The sibling class of its synonym group (0: none).
  pub(super) sibling: u8,
  /// Where it first occurs (a byte offset of the folded text): what a text says first is its
  /// subject.
  pub(super) at: u32,
  /// The phrase it stands in (see [`Phrase`]).
  pub(super) phrase: u16,
  /// [`VALUE`], [`QUANTITY`], [`AFTER_COPULA`], [`AFTER_TOPIC`], [`GRAM`].
  pub(super) flags: u8,
  /// The value of many tokens it is a part of (a path, a code span; 0: none).
  pub(super) part_of: u16,
  /// As written (for reasons); inline, as almost every token is short.
  pub(super) shown: CompactString,
}

/// A token that is part of a value (a name, number, version, path, code…): what an update
/// changes.
pub(super) const VALUE: u8 = 1;
/// A token that is an amount (a number, version, port, date): it counts its noun, it never
/// names which one.
pub(super) const QUANTITY: u8 = 2;
/// A token of a phrase that follows a copula (`is`, `:`, `是`, `は`): the value slot of "X is Y".
pub(super) const AFTER_COPULA: u8 = 4;
/// A token of a phrase that follows the topic marker `は`: what precedes it is the subject
/// ("デザインは…" is about design), never a value.
pub(super) const AFTER_TOPIC: u8 = 16;
/// A bigram of two Han characters: without a segmenter, either a word or the seam of two.
pub(super) const GRAM: u8 = 8;

/// A token in the order the text says it: what [`super::slots`] reads to tell the noun a word
/// qualifies (`EU` in "the EU cluster") from a value (`Kofi` in "Kofi is the lead").
#[derive(Debug, Clone, Copy)]
pub(super) struct Phrase {
  pub(super) key: u64,
  /// Where it starts (a byte offset of the folded text).
  pub(super) at: u32,
  /// Phrases are runs of content words between grammar words and punctuation (`的`, `の` and a
  /// possessive `'s` join a phrase rather than end it): "the EU cluster runs" is one, "is", "at"
  /// end one.
  pub(super) phrase: u16,
  pub(super) flags: u8,
  /// As [`Tok::part_of`].
  pub(super) part_of: u16,
  /// The index of its token in [`Profile::toks`].
  pub(super) tok: u32,
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
      ValueKind::Url => "an address",
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
  pub(super) shown: CompactString,
  /// The word before it: its key and how it is written.
  pub(super) label: Option<(u64, CompactString)>,
  /// Where it starts (a byte offset of the folded text).
  pub(super) at: u32,
}

/// What comparing needs of one text, computed once (tokens, n-grams, values…): everything
/// [`super::compare`] reads of it.
#[derive(Debug, Clone, Default)]
pub struct Profile {
  /// Sorted by key, one per key (the highest weight; the flags of every occurrence).
  pub(super) toks: Vec<Tok>,
  /// The keys of `toks`, apart: what the first look at a pair reads.
  pub(super) keys: Vec<u64>,
  /// The tokens of weight 0.5 or more in the order of the text, each occurrence.
  pub(super) seq: Vec<Phrase>,
  /// The phrases that hold a verb of an attribute with many values ("accepts", `支持`, `対応`).
  pub(super) set_phrases: Vec<u16>,
  pub(super) total: f32,
  pub(super) values: Vec<Value>,
  /// The keys of `values`, sorted.
  pub(super) value_keys: Vec<u64>,
  /// Whether the text says "not" (in any of the three languages).
  pub(super) negated: bool,
  /// Whether the text says something changed ("now", "moved to", `改为`, `に変更`).
  pub(super) transition: bool,
}

impl Profile {
  /// The profile of `text`.
  pub fn of(text: &str) -> Profile {
    build(text)
  }

  /// Whether the text holds `key` as a token or a value.
  pub(super) fn holds(&self, key: u64) -> bool {
    self.value_keys.binary_search(&key).is_ok() || self.keys.binary_search(&key).is_ok()
  }
}

/// The parts of `text`.
pub(super) fn build(text: &str) -> Profile {
  // Most texts are NFKC already (the quick check answers for almost every character).
  let norm = match is_nfkc_quick(text.chars()) {
    IsNormalized::Yes => fold_phrases(Cow::Borrowed(text)),
    _ => fold_phrases(Cow::Owned(text.nfkc().collect::<String>())),
  };
  let mut b = Builder {
    text: &norm,
    cjk_text: norm.chars().any(|c| scan::script(c).is_some()),
    ..Builder::default()
  };
  let mut read = 0;
  // The value the words of the code or quoted span being read are parts of.
  let mut span_of = 0;
  for piece in scan::pieces(&norm) {
    let s = &norm[piece.span.clone()];
    if let Some(gap) = norm.get(read..piece.span.start) {
      b.punctuation(gap);
    }
    // The words inside a code or quoted span are parts of its value.
    let inside = piece.span.start < read;
    read = read.max(piece.span.end);
    b.at = offset(piece.span.start);
    // A span never starts inside another: only words are inside one.
    (b.flags, b.part_of) = if inside { (VALUE, span_of) } else { (0, 0) };
    match piece.kind {
      Kind::Code => span_of = b.span(ValueKind::Code, s.trim()),
      Kind::Quoted => span_of = b.span(ValueKind::Quoted, s.trim()),
      Kind::Ascii => b.ascii(s, piece.span.start, piece.span.end),
      Kind::Cjk => b.cjk(s, piece.span.start),
    }
  }
  b.finish()
}

/// A byte offset as a token's position (a text longer than 4 GiB has its tail at the end).
fn offset(at: usize) -> u32 {
  u32::try_from(at).unwrap_or(u32::MAX)
}

/// `text` with the two-word phrases of [`synonyms::phrases`] written as their one word
/// (`pull request` → `pr`), matched ignoring ASCII case at word boundaries.
fn fold_phrases(text: Cow<'_, str>) -> Cow<'_, str> {
  let b = text.as_bytes();
  let boundary = |i: usize| b.get(i).is_none_or(|c| !c.is_ascii_alphanumeric());
  let (mut out, mut copied) = (String::new(), 0);
  let phrases = synonyms::phrases();
  for i in (0..b.len()).filter(|&i| b[i].is_ascii_alphabetic() && (i == 0 || boundary(i - 1))) {
    let found = phrases.iter().find(|(phrase, _)| {
      let end = i + phrase.len();
      let same = |s: &str| s.eq_ignore_ascii_case(phrase);
      i >= copied && boundary(end) && text.get(i..end).is_some_and(same)
    });
    if let Some((phrase, word)) = found {
      out.push_str(&text[copied..i]);
      out.push_str(word);
      copied = i + phrase.len();
    }
  }
  // Most texts hold no such phrase: they are read as they are, uncopied.
  if copied == 0 {
    return text;
  }
  out.push_str(&text[copied..]);
  Cow::Owned(out)
}

#[derive(Default)]
struct Builder<'a> {
  text: &'a str,
  /// The text has CJK: an ASCII word in it is a name (a tool, a person, a product).
  cjk_text: bool,
  /// The profile being read: its tokens, values, phrases of set verbs and flags as they come
  /// (what [`Builder::finish`] sorts, and the rest it derives from them).
  out: Profile,
  label: Option<(u64, CompactString)>,
  /// Where the token being read starts.
  at: u32,
  /// The phrase being read, and whether a grammar word or punctuation ended it (with the marks of
  /// the next phrase: [`AFTER_COPULA`], [`AFTER_TOPIC`]): the next token starts a new phrase.
  phrase: u16,
  ended: Option<u8>,
  after: u8,
  /// The flags of the tokens being read (a value's parts), and the value of many tokens they
  /// are parts of (0: none), numbered from 1.
  flags: u8,
  part_of: u16,
  values_of_parts: u16,
}

impl Builder<'_> {
  /// A token of `key`, flagged `flags` besides those of what is being read.
  fn tok(&mut self, key: &str, weight: f32, shown: &str, flags: u8) {
    self.push(hash(key), weight, 0, shown.into(), flags);
  }

  /// A number (`20`, `3.12`, `two`): an amount, weighed by its digits.
  fn number(&mut self, number: &str, shown: &str) {
    let weight = lexicon::number_weight(number);
    self.tok(number, weight, shown, VALUE | QUANTITY);
  }

  /// Ends the phrase being read: the next token starts another (after a copula, the value slot).
  fn end_phrase(&mut self, marks: u8) {
    self.ended = Some(self.ended.unwrap_or(0) | marks);
  }

  /// Opens the next phrase if the one being read was ended.
  fn open_phrase(&mut self) {
    if let Some(marks) = self.ended.take() {
      self.phrase = self.phrase.saturating_add(1);
      self.after = marks;
    }
  }

  fn push(&mut self, key: u64, weight: f32, sibling: u8, shown: CompactString, flags: u8) {
    // A grammar word is no part of a phrase: the one after it opens the next.
    if weight >= 0.5 {
      self.open_phrase();
    }
    let flags = self.flags | self.after | flags;
    self.out.toks.push(Tok {
      key,
      weight,
      sibling,
      at: self.at,
      phrase: self.phrase,
      flags,
      part_of: self.part_of,
      shown,
    });
  }

  /// A word of a synonym group: the group's token.
  fn tok_group(&mut self, group: &synonyms::Group, shown: &str, flags: u8) {
    let key = hash(group.key);
    self.push(key, group.weight, group.sibling, shown.into(), flags);
    if group.weight >= 0.8 {
      self.label = Some((key, shown.into()));
    }
  }

  /// What stands between two pieces: punctuation ends a phrase (a colon as a copula: "Staging
  /// DB: Postgres 15"); spaces, apostrophes and quotation marks do not.
  fn punctuation(&mut self, gap: &str) {
    let mark = |c: &char| !c.is_whitespace() && !"'’`\"“”「」『』".contains(*c);
    let mut marks = gap.chars().filter(mark).peekable();
    if marks.peek().is_some() {
      // What stands before a colon is its topic, like that of `は`: "CI: …" speaks of CI, it
      // does not say that something is CI.
      let copula = marks.any(|c| matches!(c, ':' | '：' | '='));
      let topic = AFTER_COPULA | AFTER_TOPIC;
      self.end_phrase(if copula { topic } else { 0 });
    }
  }

  /// The tokens made next (until the next piece) are parts of one value (a path's, a code
  /// span's), another than any before.
  fn parts_of_one(&mut self) {
    self.values_of_parts = self.values_of_parts.saturating_add(1);
    self.part_of = self.values_of_parts;
  }

  fn value(&mut self, kind: ValueKind, shown: &str, key: Option<u64>) {
    if shown.is_empty() {
      return;
    }
    let key = key.unwrap_or_else(|| hash(&shown.to_ascii_lowercase()));
    self.out.values.push(Value {
      key,
      kind,
      shown: shown.into(),
      label: self.label.clone(),
      at: self.at,
    });
  }

  /// A code or quoted span: a value, and a token of its own, since the same command or name
  /// written again is strong evidence of the same fact (its words count as well, as parts of the
  /// value numbered what this returns).
  fn span(&mut self, kind: ValueKind, inner: &str) -> u16 {
    self.parts_of_one();
    let key = format!("`{}", inner.to_ascii_lowercase());
    self.tok(&key, 1.0, inner, VALUE);
    self.value(kind, inner, None);
    self.part_of
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
    let before = self.text[..start].trim_end().chars().next_back();
    let sentence_start = before.is_none_or(|c| ".!?:;\n-*(>".contains(c));
    let contraction =
      lower.ends_with('n') && ["'t", "’t"].iter().any(|t| self.text[end..].starts_with(t));
    // The `s` of a possessive (`the service's owner`) joins its phrase; it says nothing.
    let possessive = lower == "s" && self.text[..start].ends_with(['\'', '’']);
    if possessive {
      return;
    }
    for (word, shown) in lower.split('-').zip(raw.split('-')) {
      if !word.is_empty() {
        self.out.transition |= lexicon::is_transition(word, &self.text[end..]);
        self.word(word, shown, sentence_start);
      }
    }
    self.out.negated |= contraction;
  }

  /// One word (lowercase) as written.
  fn word(&mut self, word: &str, shown: &str, sentence_start: bool) {
    self.out.negated |= lexicon::sets().negations.contains(word);
    if let Some(number) = lexicon::number_word(word) {
      self.number(number, shown);
      self.value(ValueKind::Number, shown, Some(hash(number)));
      return;
    }
    let acronym = shown.len() >= 2 && shown.bytes().all(|b| b.is_ascii_uppercase());
    let capital = shown.starts_with(|c: char| c.is_ascii_uppercase()) && !sentence_start;
    let named = acronym || capital || self.cjk_text;
    let name = if named { VALUE } else { 0 };
    if let Some(group) = synonyms::of_word(word) {
      if named {
        self.value(ValueKind::Name, shown, Some(hash(group.key)));
      }
      self.tok_group(group, shown, name);
      return;
    }
    // In CJK text an ASCII word is a name or code (`any`, `main`), not English grammar.
    let floor = if self.cjk_text { 0.8 } else { 0.0 };
    let weight = lexicon::word_weight(word).max(floor);
    let key = stem(word);
    let heavy = weight >= 0.5;
    self.tok(key, weight, shown, if heavy { name } else { 0 });
    if lexicon::sets().set_verbs.contains(stem(word)) {
      self.out.set_phrases.push(self.phrase);
    }
    // A grammar or frame word ends a noun phrase ("the EU cluster | runs"), a copula opens the
    // value slot ("the default branch is | called | trunk").
    let copula = lexicon::sets().copulas.contains(word);
    if !heavy || copula {
      self.end_phrase(if copula { AFTER_COPULA } else { 0 });
    }
    if heavy {
      if named {
        self.value(ValueKind::Name, shown, Some(hash(key)));
      }
      self.label = Some((hash(key), shown.into()));
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
      (ValueKind::Number, Some(l)) if lexicon::sets().port_labels.contains(l) => ValueKind::Port,
      (ValueKind::Number, Some(l)) if lexicon::sets().versioned.contains(l) => ValueKind::Version,
      _ => kind,
    };
    if single {
      self.number(lower, raw);
      self.value(kind, raw, None);
      return;
    }
    // Short letter-digit names (`s3`, `e2e`, `k8s`, `vue3`) are one word, not a letter and a
    // digit.
    if lower.len() <= 4 && lower.bytes().all(|b| b.is_ascii_alphanumeric()) {
      match synonyms::of_word(lower) {
        Some(group) => self.tok_group(group, raw, VALUE),
        None => self.tok(lower, lexicon::word_weight(lower).max(0.8), raw, VALUE),
      }
      self.value(kind, raw, None);
      self.label = Some((hash(lower), raw.into()));
      return;
    }
    self.value(kind, raw, None);
    self.parts_of_one();
    for (part, shown) in parts(lower).into_iter().zip(parts(raw)) {
      if part.starts_with(|c: char| c.is_ascii_digit()) {
        self.number(part, shown);
      } else if let Some(group) = synonyms::of_word(part) {
        self.tok_group(group, shown, VALUE);
      } else {
        let weight = lexicon::word_weight(part);
        self.tok(stem(part), weight, shown, VALUE);
        if weight >= 0.5 {
          self.label = Some((hash(stem(part)), shown.into()));
        }
      }
    }
  }

  /// A run of CJK characters.
  fn cjk(&mut self, run: &str, start: usize) {
    let sets = lexicon::sets();
    self.out.negated |= lexicon::found(run, &sets.cjk_negations).next().is_some();
    self.out.transition |= lexicon::found(run, &sets.cjk_transitions).next().is_some();
    let chars = run.char_indices().zip(weak_mask(run));
    let ch = |((at, c), weak): ((usize, char), bool)| Ch {
      c,
      script: scan::script(c),
      weak,
      at: offset(start + at),
      ..Ch::default()
    };
    let mut chars: Vec<Ch> = chars.map(ch).collect();
    let found = cjk_groups(run, &mut chars);
    self.places(&mut chars);
    let verbs = lexicon::found(run, &sets.cjk_set_verbs);
    let set_phrases = verbs.filter_map(|i| Some(chars.get(i)?.phrase));
    self.out.set_phrases.extend(set_phrases);
    let after = (self.phrase, self.after, self.ended);
    let first = self.out.toks.len();
    for (i, group, shown) in found {
      self.locate(chars[i]);
      self.tok_group(group, &shown, 0);
    }
    self.numerals(&chars);
    for sub in chars.chunk_by(|a, b| a.script == b.script) {
      match sub[0].script {
        Some(Script::Katakana) => self.katakana(sub),
        Some(Script::Han | Script::Hangul) => self.grams(sub),
        _ => {}
      }
    }
    (self.phrase, self.after, self.ended) = after;
    // The label of what follows is the run's last content token in the text (group words were
    // read before the bigrams around them).
    let heavy = self.out.toks[first..].iter().filter(|t| t.weight >= 0.5);
    if let Some(t) = heavy.max_by_key(|t| t.at) {
      self.label = Some((t.key, t.shown.clone()));
    }
  }

  /// Where each character of a CJK run stands: its phrase. Grammar characters (and a content
  /// character no bigram covers) end a phrase (a copula, `是` or `は`, opens the value slot),
  /// except a lone `的` or `の`, which joins a noun to the one it qualifies (`测试环境的地址`,
  /// `注文画面の表示`).
  fn places(&mut self, chars: &mut [Ch]) {
    for i in 0..chars.len() {
      let ch = chars[i];
      // Outside the run (before its first character, after its last) is no grammar of it.
      let (prev, next) = (chars[..i].last(), chars.get(i + 1));
      let lone = !prev.is_some_and(|n| n.weak) && !next.is_some_and(|n| n.weak);
      let joins = lone && matches!(ch.c, '的' | 'の');
      // A content character no bigram covers (`写` of `VS Code 写 Java`, `跑` between two
      // names) is a word of its own, most often a verb: it ends a phrase as grammar does; not
      // before `的` or `の`, where it closes a modifier (`Gitee 上的账号`).
      let han = |n: Option<&Ch>| n.is_some_and(|n| n.script == ch.script && !n.weak);
      let single = !ch.weak
        && ch.word == 0
        && matches!(ch.script, Some(Script::Han | Script::Hangul))
        && !han(prev)
        && !han(next)
        && !next.is_some_and(|n| matches!(n.c, '的' | 'の'));
      if single {
        self.end_phrase(0);
      }
      if ch.weak && !joins {
        // Only a lone `は` marks the topic of "X は Y" (`には`, `では` mark a place).
        let copula = lone && lexicon::sets().cjk_copulas.contains(&ch.c);
        let marks = match (copula, ch.c == 'は') {
          (true, true) => AFTER_COPULA | AFTER_TOPIC,
          (true, false) => AFTER_COPULA,
          (false, _) => 0,
        };
        self.end_phrase(marks);
      } else if !ch.weak {
        self.open_phrase();
      }
      (chars[i].phrase, chars[i].after) = (self.phrase, self.after);
    }
  }

  /// The next tokens stand where `ch` does.
  fn locate(&mut self, ch: Ch) {
    (self.at, self.phrase, self.after, self.ended) = (ch.at, ch.phrase, ch.after, None);
  }

  /// Numerals with a counter (`三周`, `两个人`): numbers, as values.
  fn numerals(&mut self, chars: &[Ch]) {
    for pair in chars.windows(2) {
      let number = lexicon::cjk_numeral(pair[0].c).filter(|_| lexicon::is_counter(pair[1].c));
      if let Some(number) = number {
        let shown: String = [pair[0].c, pair[1].c].iter().collect();
        self.value(ValueKind::Number, &shown, Some(hash(number)));
      }
    }
  }

  /// A katakana run: one word, unless synonym-group words make all of it.
  fn katakana(&mut self, sub: &[Ch]) {
    if sub.iter().all(|ch| ch.word > 0) {
      return;
    }
    let word: String = sub.iter().map(|ch| ch.c).collect();
    self.locate(sub[0]);
    let weight = match (sub.iter().all(|ch| ch.weak), sub.len()) {
      (true, _) => 0.3,
      (false, 0 | 1) => 0.1,
      (false, 2) => 0.6,
      _ => 1.0,
    };
    self.tok(&word, weight, &word, 0);
  }

  /// A Han or Hangul run: content unigrams (0.25) and the bigrams not inside one group word:
  /// 0.7 when both characters are content, half that at the edge of a group word (whose own
  /// token already counts), less with grammar. A bigram weighs less than an English word: without
  /// a segmenter, about half the bigrams of a sentence straddle two words.
  fn grams(&mut self, sub: &[Ch]) {
    let mut buf = [0u8; 8];
    for ch in sub {
      self.locate(*ch);
      if !ch.weak && ch.word == 0 && ch.script == Some(Script::Han) {
        let s = ch.c.encode_utf8(&mut buf);
        self.tok(s, 0.25, s, 0);
      }
    }
    for pair in sub.windows(2) {
      let (a, b) = (pair[0], pair[1]);
      if a.word > 0 && a.word == b.word {
        continue;
      }
      let gram: CompactString = [a.c, b.c].iter().collect();
      self.locate(a);
      let edge = (a.word > 0) != (b.word > 0);
      let weight = match (a.weak, b.weak) {
        (false, false) if edge => 0.35,
        (false, false) => 0.7,
        (true, true) => 0.05,
        _ => 0.25,
      };
      // A numeral with its counter (`三周`) is an amount, as `3 weeks` is.
      let amount = lexicon::cjk_numeral(a.c).is_some() && lexicon::is_counter(b.c);
      let han = a.script == Some(Script::Han) && b.script == Some(Script::Han);
      let flags = match (amount, han) {
        (true, _) => VALUE | QUANTITY,
        (false, true) => GRAM,
        (false, false) => 0,
      };
      self.push(hash(&gram), weight, 0, gram, flags);
    }
  }

  fn finish(self) -> Profile {
    let mut p = self.out;
    let heavy = p.toks.iter().filter(|t| t.weight >= 0.5);
    let phrase = |t: &Tok| Phrase {
      key: t.key,
      at: t.at,
      phrase: t.phrase,
      flags: t.flags,
      part_of: t.part_of,
      tok: 0,
    };
    p.seq = heavy.map(phrase).collect();
    // Stable: a code span and the first word inside it start at one offset, the span first.
    p.seq.sort_by_key(|p| p.at);
    p.toks
      .sort_by(|a, b| a.key.cmp(&b.key).then(b.weight.total_cmp(&a.weight)));
    // One token per key, flagged as every occurrence was (a name once is a name).
    p.toks.dedup_by(|next, kept| {
      let same = next.key == kept.key;
      if same {
        kept.flags |= next.flags & (VALUE | QUANTITY);
      }
      same
    });
    for phrase in &mut p.seq {
      let at = p.toks.binary_search_by_key(&phrase.key, |t| t.key);
      phrase.tok = at.map_or(u32::MAX, offset);
    }
    p.total = p.toks.iter().map(|t| t.weight).sum();
    p.keys = p.toks.iter().map(|t| t.key).collect();
    p.value_keys = p.values.iter().map(|v| v.key).collect();
    p.value_keys.sort_unstable();
    p.set_phrases.sort_unstable();
    p.set_phrases.dedup();
    p
  }
}

/// A character of a CJK run, with its marks and where it stands: its offset and its phrase.
#[derive(Clone, Copy, Default)]
struct Ch {
  c: char,
  script: Option<Script>,
  /// Grammar or frame rather than content (see [`weak_mask`]); a group word is content.
  weak: bool,
  /// The number of the synonym-group word it is in (0: none).
  word: usize,
  at: u32,
  phrase: u16,
  /// The marks of its phrase ([`AFTER_COPULA`], [`AFTER_TOPIC`]).
  after: u8,
}

/// The synonym-group words of a run, longest first at each position: each (where it starts,
/// its group, as written) gives its group's token, and marks its characters ([`Ch::word`]).
fn cjk_groups(run: &str, chars: &mut [Ch]) -> Vec<(usize, &'static synonyms::Group, String)> {
  let mut found = Vec::new();
  let mut next = 0;
  for (i, (at, _)) in run.char_indices().enumerate() {
    if i < next {
      continue;
    }
    if let Some((group, len)) = synonyms::cjk_at(&run[at..]) {
      let end = (i + len).min(chars.len());
      for ch in &mut chars[i..end] {
        ch.word = found.len() + 1;
        ch.weak = false;
      }
      found.push((i, group, run[at..].chars().take(len).collect()));
      next = i + len;
    }
  }
  found
}

/// Which characters of a CJK run are grammar or frame rather than content: hiragana, Chinese
/// particles, and the characters of a frame word (`用户`, `喜欢`, `ユーザー`, `使う`).
pub(super) fn weak_mask(run: &str) -> Vec<bool> {
  let mut cover = 0;
  let chars = run.char_indices().enumerate();
  let weak = chars.map(|(i, (at, c))| {
    cover = cover.max(i + lexicon::cjk_frame_at(&run[at..]));
    i < cover || lexicon::sets().zh_stop.contains(&c) || scan::script(c) == Some(Script::Hiragana)
  });
  weak.collect()
}

/// The kind of value an ASCII run is, or `None` for a plain word (letters, maybe hyphenated).
fn classify(lower: &str, raw: &str) -> Option<ValueKind> {
  let b = lower.as_bytes();
  let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
  let letters = b.iter().filter(|c| c.is_ascii_alphabetic()).count();
  if lower.contains("://") || is_host(lower.split('/').next().unwrap_or_default()) {
    return Some(ValueKind::Url);
  }
  if is_date(b) {
    return Some(ValueKind::Date);
  }
  // `.env`, `.nvmrc`: a file named by a leading dot.
  let dotfile = b.len() > 2 && b[0] == b'.' && b[1].is_ascii_alphabetic();
  if lower.contains(['/', '\\']) || lower.starts_with('~') || dotfile {
    return Some(ValueKind::Path);
  }
  if is_version(b) {
    return Some(ValueKind::Version);
  }
  // A number, or a quantity with its unit: 30s, 512mb, 4gb, 2x.
  let quantity = b.first().is_some_and(u8::is_ascii_digit) && letters <= 3;
  if digits == b.len() || (quantity && b.iter().all(u8::is_ascii_alphanumeric)) {
    return Some(ValueKind::Number);
  }
  let hump = |w: &[u8]| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase();
  let camel = raw.as_bytes().windows(2).any(hump);
  let dotted = lower.split('.').filter(|p| p.len() >= 2).count() >= 2;
  let marked = lower.contains(['_', '@', '#', '=', ':', '+', '%']);
  (digits > 0 || camel || dotted || marked).then_some(ValueKind::Ident)
}

/// `docs.acme.io`, `api.example.cn`: a dotted name ending in a common top-level domain.
fn is_host(s: &str) -> bool {
  let label = |l: &str| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
  let Some((rest, tld)) = s.rsplit_once('.') else {
    return false;
  };
  lexicon::sets().tlds.contains(tld) && rest.split('.').all(label)
}

/// `2024-05-01`, `2024/5/1`, `2024-05`.
fn is_date(b: &[u8]) -> bool {
  let groups: Vec<&[u8]> = b.split(|c| matches!(c, b'-' | b'/' | b'.')).collect();
  let number = |g: &&[u8]| !g.is_empty() && g.iter().all(u8::is_ascii_digit);
  groups.iter().all(number)
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

/// The parts of a compound: runs of letters, and runs of digits with the dots between them.
fn parts(s: &str) -> Vec<&str> {
  let b = s.as_bytes();
  let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
  // 1: a letter, 2: a digit or a dot between two, 0: anything else.
  let class = |i: usize| match b[i] {
    c if c.is_ascii_alphabetic() => 1,
    b'.' if i > 0 && digit(i - 1) && digit(i + 1) => 2,
    _ if digit(i) => 2,
    _ => 0,
  };
  let at: Vec<usize> = (0..b.len()).collect();
  let runs = at.chunk_by(|i, j| class(*i) == class(*j));
  let runs = runs.filter(|run| class(run[0]) != 0);
  runs.map(|run| &s[run[0]..run[run.len() - 1] + 1]).collect()
}

#[cfg(test)]
mod tests {
  use super::*;

  fn kinds(text: &str) -> Vec<(ValueKind, String)> {
    build(text)
      .values
      .into_iter()
      .map(|v| (v.kind, v.shown.to_string()))
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
    let got = kinds("docs at docs.acme.io, then acme.github.io/docs, not config.toml");
    let want = [
      (Url, "docs.acme.io"),
      (Url, "acme.github.io/docs"),
      (Ident, "config.toml"),
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
