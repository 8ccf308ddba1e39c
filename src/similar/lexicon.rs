//! What a word is worth as evidence of "the same fact", judged by its shape and a few short
//! lists, since there are no corpus statistics to compute an IDF from: stopwords say nothing,
//! the frame words of a memory entry ("the user prefers …", "用户喜欢…", "ユーザーは…を好む")
//! say little, common technical words say a bit, and long or rare-looking words say most. Also
//! the words that negate a statement or say that a fact changed, in the three languages.
//!
//! The lists are space-separated words, read once into sets.
#![forbid(unsafe_code)]

use std::sync::OnceLock;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// English words that carry no subject: articles, pronouns, prepositions, auxiliaries, and the
/// first half of a contraction (`don` of `don't`).
const STOP: &str = "a about after again all also am an and any are as at be been being both but \
  by can could did do does doing done each either etc for from had has have having he her here \
  him his how i if in into is it its just me more most my of off on once one only or other our \
  ours out over own same she so some such than that the their them then there these they this \
  those through to too under until up upon very via was we were what when where which while who \
  whom why will with would you your yours s t re ve ll d m e g ie eg per within because since \
  instead rather whether though still even yet already now gets get got let lets thing things \
  way ways really quite don doesn didn isn aren wasn weren won shouldn mustn couldn wouldn hasn \
  haven hadn";

/// English words that frame a memory entry rather than say its content: who ("user", "team"),
/// the stance ("prefers", "likes", "wants", "uses"), how often ("always", "usually").
const FRAME: &str = "user users prefer prefers preferred preferring preference preferences like \
  likes liked want wants wanted use uses used using always usually generally typically often \
  normally project projects team please should must need needs needed sure keep keeps favor \
  favors favour favours love loves hate hates dislike dislikes ask asks asked \
  remember note important okay ok fine well good better best mostly mainly currently default \
  defaults whenever every";

/// Common technical words: real content, but shared by many unrelated entries.
const COMMON: &str = "run runs running ran set sets setting settings add adds added new old \
  work works working time times before first last next check checks write writes written read \
  reads call calls called start starts started stop put puts take takes see show shows try \
  tries main local locally based different many much few lot lots day days long small big large \
  line lines name names named value values part parts inside outside between around whole full \
  two three go goes going make makes";

/// Words that turn a statement into its opposite, in English.
const NEGATIONS: &str = "not never no don't doesn't didn't isn't aren't won't can't cannot \
  shouldn't mustn't dont doesnt avoid avoids nothing none without";

/// English words that say a fact changed: the new text is an update of what it names.
const TRANSITIONS: &str = "now moved switched replaced migrated upgraded downgraded renamed \
  became longer anymore bumped raised lowered increased decreased reduced";

/// English words that say a fact changed when `to` or `from` follows ("changed to 8080", not
/// "a summary of what changed").
const TRANSITIONS_TO: &str = "changed updated set";

/// Characters of Chinese that are grammar rather than content (particles, pronouns, measure
/// words, copulas, common prepositions, negations).
const ZH_STOP: &str = "的了是在和与及或把被都也就很还而其之这那\
  个些等将对从向到于为以着过吗呢吧啊所不没别";

/// Chinese and Japanese frame words, matched longest-first at each position of a run.
const CJK_FRAME: &str = "用户 使用者 喜欢 偏好 习惯 倾向 倾向于 使用 采用 总是 \
  一直 通常 一般 需要 项目 我们 希望 应该 必须 请 记住 注意 默认 目前 现在 每次 \
  用 要 有 让 给 做 ユーザー ユーザ 利用者 好む 好み 好き 使う 使い 使用 利用 \
  常に いつも 普段 基本 プロジェクト 必要 現在 今 毎回 覚え デフォルト";

/// Chinese and Japanese negations, found as substrings of a run.
const CJK_NEGATIONS: &str = "不 没 别 勿 禁止 ない ません なかった 不要";

/// Chinese and Japanese phrases that say a fact changed.
const CJK_TRANSITIONS: &str = "改为 改成 换成 改用 迁移到 迁到 升级 降级 现在 变成 \
  变为 不再 改到 移到 更新为 换到 变更为 调整为 に変更 変更した 変更済 変更になった \
  移行 に変え 変わった 移っ に移動 移動した に上げ に更新 更新済 今は 切り替え \
  になった 乗り換え 提高到 降到 降低到 增加到 减少到 调到 交代 交替 増やした 減らした \
  引き上げ 引き下げ 交给 移交 改由";

/// The words of a list.
fn words(list: &'static str) -> impl Iterator<Item = &'static str> {
  list.split_whitespace()
}

struct Sets {
  /// Each listed English word's weight.
  weights: HashMap<&'static str, f32>,
  negations: HashSet<&'static str>,
  transitions: HashSet<&'static str>,
  transitions_to: HashSet<&'static str>,
  /// CJK frame words by their first character.
  cjk_frame: HashMap<char, Vec<&'static str>>,
  cjk_negations: HashMap<char, Vec<&'static str>>,
  cjk_transitions: HashMap<char, Vec<&'static str>>,
}

fn sets() -> &'static Sets {
  static SETS: OnceLock<Sets> = OnceLock::new();
  SETS.get_or_init(|| {
    let mut weights = HashMap::default();
    // A later list wins: a negation weighs nothing whatever else it is.
    for (list, weight) in [(COMMON, 0.5), (FRAME, 0.3), (STOP, 0.0), (NEGATIONS, 0.0)] {
      weights.extend(words(list).map(|w| (w, weight)));
    }
    Sets {
      weights,
      negations: words(NEGATIONS).collect(),
      transitions: words(TRANSITIONS).collect(),
      transitions_to: words(TRANSITIONS_TO).collect(),
      cjk_frame: by_first_char(CJK_FRAME),
      cjk_negations: by_first_char(CJK_NEGATIONS),
      cjk_transitions: by_first_char(CJK_TRANSITIONS),
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
  let mut s = word;
  for suffix in ["ing", "ed", "es", "s"] {
    if let Some(rest) = s.strip_suffix(suffix) {
      if rest.len() >= 3 && !(suffix == "s" && (rest.ends_with('s') || rest.ends_with('u'))) {
        s = rest;
        break;
      }
    }
  }
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

/// Whether `c` is a Chinese grammar character.
pub(super) fn is_zh_stop(c: char) -> bool {
  ZH_STOP.contains(c)
}

/// The words of a list by their first character.
fn by_first_char(list: &'static str) -> HashMap<char, Vec<&'static str>> {
  let mut map: HashMap<char, Vec<&'static str>> = HashMap::default();
  for word in words(list) {
    if let Some(first) = word.chars().next() {
      map.entry(first).or_default().push(word);
    }
  }
  map
}

/// The length in characters of the longest CJK frame word at the start of `run`, or 0.
pub(super) fn cjk_frame_at(run: &str) -> usize {
  let Some(words) = run.chars().next().and_then(|c| sets().cjk_frame.get(&c)) else {
    return 0;
  };
  let found = words.iter().filter(|w| run.starts_with(*w));
  found.map(|w| w.chars().count()).max().unwrap_or(0)
}

/// Whether an ASCII word (lowercase) negates.
pub(super) fn is_negation(word: &str) -> bool {
  sets().negations.contains(word)
}

/// Whether `run` holds one of the words of `by_first` (one pass, not a search per word).
fn holds_any(run: &str, by_first: &HashMap<char, Vec<&'static str>>) -> bool {
  run.char_indices().any(|(at, c)| {
    let words = by_first.get(&c).map_or(&[][..], Vec::as_slice);
    words.iter().any(|w| run[at..].starts_with(w))
  })
}

/// Whether a CJK run holds a negation.
pub(super) fn has_cjk_negation(run: &str) -> bool {
  holds_any(run, &sets().cjk_negations)
}

/// Whether an ASCII word (lowercase), followed by `rest` of the text, says a fact changed.
pub(super) fn is_transition(word: &str, rest: &str) -> bool {
  let to = || {
    let next = rest
      .trim_start()
      .split(|c: char| !c.is_ascii_alphabetic())
      .next();
    next.is_some_and(|w| w.eq_ignore_ascii_case("to") || w.eq_ignore_ascii_case("from"))
  };
  sets().transitions.contains(word) || (sets().transitions_to.contains(word) && to())
}

/// Whether a CJK run says a fact changed.
pub(super) fn has_cjk_transition(run: &str) -> bool {
  holds_any(run, &sets().cjk_transitions)
}

/// English number words, as the number they name.
pub(super) fn number_word(word: &str) -> Option<&'static str> {
  const WORDS: [&str; 12] = [
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve",
  ];
  const DIGITS: [&str; 12] = [
    "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12",
  ];
  WORDS.iter().position(|w| *w == word).map(|i| DIGITS[i])
}

/// A Chinese or Japanese numeral (one character, 一 to 十 and 两) as its number.
pub(super) fn cjk_numeral(c: char) -> Option<&'static str> {
  const NUMERALS: &str = "一二三四五六七八九十两";
  const DIGITS: [&str; 11] = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "2"];
  NUMERALS.chars().position(|n| n == c).map(|i| DIGITS[i])
}

/// A character that counts what a numeral before it numbers (`三周`, `两个人`): only then is the
/// numeral a number rather than part of a word (`一直`, `统一`).
pub(super) fn is_counter(c: char) -> bool {
  "个人名位周天日月年次条行点分秒台件倍週回".contains(c)
}

#[cfg(test)]
mod tests {
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
