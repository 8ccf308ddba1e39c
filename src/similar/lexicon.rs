//! What a word is worth as evidence of "the same fact", judged by its shape and a few short
//! lists, since there are no corpus statistics to compute an IDF from: stopwords say nothing,
//! the frame words of a memory entry ("the user prefers …", "用户喜欢…", "ユーザーは…を好む")
//! say little, common technical words say a bit, and long or rare-looking words say most. Also
//! the words that negate a statement or say that a fact changed, in the three languages.
//!
//! The lists are data, `lexicon.txt` beside this file, read once into sets.
#![forbid(unsafe_code)]

use std::sync::OnceLock;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// The words of list `name` of `lexicon.txt` (none for a name it does not have: the tests check
/// every name this file reads).
fn words(name: &str) -> impl Iterator<Item = &'static str> {
  let head = format!("[{name}]");
  let mut lines = include_str!("lexicon.txt").lines();
  let found = lines.by_ref().any(|l| l == head);
  let list = lines.take_while(move |l| found && !l.is_empty());
  list.flat_map(str::split_whitespace)
}

/// Words by their first character.
type ByFirst = HashMap<char, Vec<&'static str>>;

/// The lists of `lexicon.txt`, as sets; the ASCII words are lowercase.
pub(super) struct Sets {
  /// Each listed English word's weight.
  weights: HashMap<&'static str, f32>,
  /// ASCII words that negate.
  pub(super) negations: HashSet<&'static str>,
  /// ASCII copulas: what follows one is the value of "X is Y".
  pub(super) copulas: HashSet<&'static str>,
  /// CJK characters that are copulas (`是`, `は`).
  pub(super) cjk_copulas: HashSet<char>,
  /// The stems of the English set verbs, and the CJK ones by their first character.
  pub(super) set_verbs: HashSet<&'static str>,
  pub(super) cjk_set_verbs: ByFirst,
  transitions: HashSet<&'static str>,
  transitions_to: HashSet<&'static str>,
  /// CJK frame words by their first character.
  cjk_frame: ByFirst,
  pub(super) cjk_negations: ByFirst,
  pub(super) cjk_transitions: ByFirst,
  /// Chinese grammar characters.
  pub(super) zh_stop: HashSet<char>,
  /// Labels that make a bare number after them a version (`Node 20`).
  pub(super) versioned: HashSet<&'static str>,
  /// Labels that make a bare number after them a port.
  pub(super) port_labels: HashSet<&'static str>,
  /// Top-level domains common enough that `name.tld` is a host, not a file.
  pub(super) tlds: HashSet<&'static str>,
}

/// The lists, read once.
pub(super) fn sets() -> &'static Sets {
  static SETS: OnceLock<Sets> = OnceLock::new();
  SETS.get_or_init(|| {
    // A later list wins: a negation weighs nothing whatever else it is.
    let lists = [
      ("common", 0.5),
      ("frame", 0.3),
      ("stop", 0.0),
      ("negations", 0.0),
    ];
    let weights = lists.map(|(list, weight)| words(list).map(move |w| (w, weight)));
    let ascii = |w: &&str| w.is_ascii();
    let cjk = |w: &&str| !w.is_ascii();
    Sets {
      weights: weights.into_iter().flatten().collect(),
      negations: words("negations").collect(),
      copulas: words("copulas").filter(ascii).collect(),
      cjk_copulas: words("copulas").filter(cjk).flat_map(str::chars).collect(),
      set_verbs: words("set-verbs").filter(ascii).map(stem).collect(),
      cjk_set_verbs: by_first_char("set-verbs"),
      transitions: words("transitions").collect(),
      transitions_to: words("transitions-to").collect(),
      cjk_frame: by_first_char("cjk-frame"),
      cjk_negations: by_first_char("cjk-negations"),
      cjk_transitions: by_first_char("cjk-transitions"),
      zh_stop: words("zh-stop").flat_map(str::chars).collect(),
      versioned: words("versioned").collect(),
      port_labels: words("port-labels").collect(),
      tlds: words("tlds").collect(),
    }
  })
}

/// The weight of an ASCII word (lowercase, as written) as evidence of a shared subject.
/// Negations weigh nothing here: whether a text says "not" is compared on its own.
pub(super) fn word_weight(word: &str) -> f32 {
  if let Some(weight) = sets().weights.get(word) {
    return *weight;
  }
  match word.len() {
    0 | 1 => 0.1,
    2 => 0.5,
    3 => 0.8,
    4 | 5 => 1.0,
    _ => 1.2,
  }
}

/// The weight of a number or version as evidence: a lone digit is common, a port or a year is
/// not.
pub(super) fn number_weight(number: &str) -> f32 {
  let digits = number.bytes().filter(u8::is_ascii_digit).count();
  match (number.contains('.'), digits) {
    (true, _) => 1.0,
    (false, 0 | 1) => 0.5,
    (false, 2) => 0.7,
    _ => 1.0,
  }
}

/// A light English stemmer: the same word inflected (`deploys`, `deployed`, `deploying`) gives
/// the same stem, a prefix of the word. It need not be a real root, only a consistent one.
pub(super) fn stem(word: &str) -> &str {
  if word.len() <= 3 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
    return word;
  }
  // `reply`, `replies`, `replied` → `repl`: a final consonant + `y` goes, as `ies`/`ied` do.
  let b = word.as_bytes();
  let n = b.len();
  if word.ends_with("ies") || word.ends_with("ied") {
    return &word[..n - 3];
  }
  if b[n - 1] == b'y' && !b"aeiou".contains(&b[n - 2]) {
    return &word[..n - 1];
  }
  let stripped = ["ing", "ed", "es", "s"].into_iter().find_map(|suffix| {
    let rest = word.strip_suffix(suffix)?;
    // `class`, `status`: a final `s` after `s` or `u` is no plural.
    let kept_s = suffix == "s" && rest.ends_with(['s', 'u']);
    (rest.len() >= 3 && !kept_s).then_some(rest)
  });
  let mut s = stripped.unwrap_or(word);
  // `used` → `us` was refused above as too short: `d` alone leaves `use`.
  if s == word && word.ends_with("ed") {
    s = &word[..word.len() - 1];
  }
  let b = s.as_bytes();
  let n = b.len();
  let doubled = n >= 4 && b[n - 1] == b[n - 2] && !b"aeiouls".contains(&b[n - 1]);
  if s.len() < word.len() && doubled {
    s = &s[..n - 1];
  }
  match s.strip_suffix('e') {
    Some(rest) if rest.len() >= 3 => rest,
    _ => s,
  }
}

/// The words of a list by their first character.
fn by_first_char(list: &str) -> ByFirst {
  let mut map = ByFirst::default();
  for word in words(list) {
    if let Some(first) = word.chars().next() {
      map.entry(first).or_default().push(word);
    }
  }
  map
}

/// The words of `by_first` at the start of `run`.
fn starting<'a>(
  run: &'a str,
  by_first: &'static ByFirst,
) -> impl Iterator<Item = &'static str> + 'a {
  let words = run.chars().next().and_then(|c| by_first.get(&c));
  let words = words.map_or(&[][..], Vec::as_slice).iter().copied();
  words.filter(move |w| run.starts_with(w))
}

/// The character offsets in `run` where a word of `by_first` starts (one pass, not a search
/// per word).
pub(super) fn found<'a>(
  run: &'a str,
  by_first: &'static ByFirst,
) -> impl Iterator<Item = usize> + 'a {
  let found = run.char_indices().enumerate();
  found.filter_map(move |(i, (at, _))| starting(&run[at..], by_first).next().map(|_| i))
}

/// The length in characters of the longest CJK frame word at the start of `run`, or 0.
pub(super) fn cjk_frame_at(run: &str) -> usize {
  let found = starting(run, &sets().cjk_frame);
  found.map(|w| w.chars().count()).max().unwrap_or(0)
}

/// Whether an ASCII word (lowercase), followed by `rest` of the text, says a fact changed.
pub(super) fn is_transition(word: &str, rest: &str) -> bool {
  let to = || {
    let rest = rest.trim_start();
    let next = rest.split(|c: char| !c.is_ascii_alphabetic()).next();
    next.is_some_and(|w| w.eq_ignore_ascii_case("to") || w.eq_ignore_ascii_case("from"))
  };
  sets().transitions.contains(word) || (sets().transitions_to.contains(word) && to())
}

/// The numbers that [`number_word`] and [`cjk_numeral`] read, from 1.
const DIGITS: [&str; 12] = [
  "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12",
];

/// English number words, as the number they name.
pub(super) fn number_word(word: &str) -> Option<&'static str> {
  const WORDS: &str = "one two three four five six seven eight nine ten eleven twelve";
  WORDS.split(' ').position(|w| w == word).map(|i| DIGITS[i])
}

/// A Chinese or Japanese numeral (one character, 一 to 十 and 两) as its number.
pub(super) fn cjk_numeral(c: char) -> Option<&'static str> {
  let c = if c == '两' { '二' } else { c };
  let i = "一二三四五六七八九十".chars().position(|n| n == c)?;
  Some(DIGITS[i])
}

/// A character that counts what a numeral before it numbers (`三周`, `两个人`): only then is the
/// numeral a number rather than part of a word (`一直`, `统一`).
pub(super) fn is_counter(c: char) -> bool {
  "个人名位周天日月年次条行点分秒台件倍週回".contains(c)
}

#[cfg(test)]
mod tests {
  #[test]
  fn every_list_this_file_reads_is_in_the_data() {
    // Every string literal of `sets()` names a list.
    let source = include_str!("lexicon.rs");
    let body = source
      .split("fn sets()")
      .nth(1)
      .and_then(|b| b.split("\n}\n").next());
    let literals = body.unwrap_or_default().split('"').skip(1).step_by(2);
    let names: Vec<&str> = literals.collect();
    assert_eq!(names.len(), 18, "{names:?}");
    for name in names {
      assert!(
        words(name).count() > 0,
        "[{name}] is missing or empty in lexicon.txt"
      );
    }
  }

  use super::*;

  #[test]
  fn inflections_share_a_stem() {
    for group in [
      &["deploy", "deploys", "deployed", "deploying"][..],
      &["prefer", "prefers", "preferred", "preferring"],
      &["test", "tests", "testing", "tested"],
      &["use", "uses", "used"],
      &["file", "files"],
      &["run", "runs", "running"],
      &["reply", "replies", "replied"],
      &["retry", "retries", "retried"],
    ] {
      let stems: Vec<&str> = group.iter().map(|w| stem(w)).collect();
      assert!(
        stems.iter().all(|s| *s == stems[0]),
        "{group:?} → {stems:?}"
      );
    }
    assert_eq!(stem("class"), "class");
    assert_eq!(stem("status"), "status");
    assert_eq!(stem("pnpm"), "pnpm");
  }

  #[test]
  fn stems_are_prefixes_of_their_words() {
    for w in [
      "deploying",
      "preferred",
      "files",
      "makes",
      "running",
      "uses",
      "used",
    ] {
      assert!(w.starts_with(stem(w)), "{w}");
    }
  }

  #[test]
  fn weights_follow_the_lists() {
    assert_eq!(word_weight("the"), 0.0);
    assert_eq!(word_weight("prefers"), 0.3);
    assert_eq!(word_weight("run"), 0.5);
    assert_eq!(word_weight("not"), 0.0);
    assert_eq!(word_weight("vitest"), 1.2);
    assert_eq!(cjk_frame_at("用户喜欢"), 2);
    assert_eq!(cjk_frame_at("ユーザーは"), 4);
    assert_eq!(cjk_frame_at("回答"), 0);
  }

  #[test]
  fn numbers_are_read_in_words_and_numerals() {
    assert_eq!(number_word("two"), Some("2"));
    assert_eq!(cjk_numeral('两'), Some("2"));
    assert!(is_counter('周') && !is_counter('直'));
  }
}
