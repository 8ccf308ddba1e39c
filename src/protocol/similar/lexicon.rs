//! What a word is worth as evidence of "the same fact", judged by its shape and a few short
//! lists, since there are no corpus statistics to compute an IDF from: stopwords say nothing,
//! the frame words of a memory entry ("the user prefers …", "用户喜欢…", "ユーザーは…を好む")
//! say little, common technical verbs say a bit, and long or rare-looking words say most.
#![forbid(unsafe_code)]

/// English words that carry no subject: articles, pronouns, prepositions, auxiliaries.
const STOP: &[&str] = &[
  "a", "about", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
  "been", "being", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "done",
  "each", "either", "etc", "for", "from", "had", "has", "have", "having", "he", "her", "here",
  "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "just", "me", "more", "most",
  "my", "of", "off", "on", "once", "one", "only", "or", "other", "our", "ours", "out", "over",
  "own", "same", "she", "so", "some", "such", "than", "that", "the", "their", "them", "then",
  "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up",
  "upon", "very", "via", "was", "we", "were", "what", "when", "where", "which", "while", "who",
  "whom", "why", "will", "with", "would", "you", "your", "yours", "s", "t", "re", "ve", "ll", "d",
  "m", "e", "g", "ie", "eg", "per", "within", "without", "because", "since", "so", "instead",
  "rather", "whether", "though", "still", "even", "yet", "already", "now", "gets", "get", "got",
  "let", "lets", "there", "thing", "things", "way", "ways", "really", "quite", "it's", "that's",
  "they're", "we're", "i'm",
];

/// English words that frame a memory entry rather than say its content: who ("user", "team"),
/// the stance ("prefers", "likes", "wants", "uses"), how often ("always", "usually").
const FRAME: &[&str] = &[
  "user",
  "users",
  "prefer",
  "prefers",
  "preferred",
  "prefering",
  "preferring",
  "preference",
  "preferences",
  "like",
  "likes",
  "liked",
  "want",
  "wants",
  "wanted",
  "use",
  "uses",
  "used",
  "using",
  "always",
  "usually",
  "generally",
  "typically",
  "often",
  "normally",
  "project",
  "projects",
  "team",
  "please",
  "should",
  "must",
  "need",
  "needs",
  "needed",
  "make",
  "sure",
  "keep",
  "keeps",
  "go",
  "goes",
  "going",
  "likes",
  "favor",
  "favors",
  "favour",
  "favours",
  "loves",
  "love",
  "hate",
  "hates",
  "dislikes",
  "dislike",
  "asked",
  "ask",
  "asks",
  "wants",
  "remember",
  "note",
  "important",
  "okay",
  "ok",
  "fine",
  "well",
  "good",
  "better",
  "best",
  "mostly",
  "mainly",
  "currently",
  "now",
  "default",
  "defaults",
  "whenever",
  "every",
];

/// Common technical words: real content, but shared by many unrelated entries.
const COMMON: &[&str] = &[
  "run",
  "runs",
  "running",
  "ran",
  "set",
  "sets",
  "setting",
  "settings",
  "add",
  "adds",
  "added",
  "new",
  "old",
  "file",
  "files",
  "code",
  "work",
  "works",
  "working",
  "time",
  "times",
  "before",
  "first",
  "last",
  "next",
  "change",
  "changes",
  "changed",
  "check",
  "checks",
  "write",
  "writes",
  "written",
  "read",
  "reads",
  "call",
  "calls",
  "called",
  "start",
  "starts",
  "started",
  "stop",
  "put",
  "puts",
  "take",
  "takes",
  "see",
  "show",
  "shows",
  "try",
  "tries",
  "new",
  "main",
  "local",
  "locally",
  "based",
  "instead",
  "different",
  "same",
  "two",
  "three",
  "many",
  "much",
  "few",
  "lot",
  "lots",
  "day",
  "days",
  "week",
  "weeks",
  "long",
  "short",
  "small",
  "big",
  "large",
  "line",
  "lines",
  "name",
  "names",
  "named",
  "value",
  "values",
  "thing",
  "part",
  "parts",
  "via",
  "inside",
  "outside",
  "between",
  "around",
  "usually",
  "whole",
  "full",
  "each",
  "own",
  "never",
  "not",
  "no",
  "don't",
  "doesn't",
  "does",
  "isn't",
  "won't",
  "can't",
];

/// Characters of Chinese that are grammar rather than content (particles, pronouns, measure
/// words, copulas, common prepositions).
const ZH_STOP: &str =
  "的了是在和与及或把被都也就很还而其之这那个些等将对从向到于为以着过吗呢吧啊所";

/// Chinese and Japanese frame words, matched longest-first at each position of a run.
const CJK_FRAME: &[&str] = &[
  "用户",
  "使用者",
  "喜欢",
  "偏好",
  "习惯",
  "倾向",
  "倾向于",
  "使用",
  "采用",
  "总是",
  "一直",
  "通常",
  "一般",
  "需要",
  "项目",
  "我们",
  "希望",
  "应该",
  "必须",
  "请",
  "记住",
  "注意",
  "默认",
  "目前",
  "现在",
  "每次",
  "用",
  "要",
  "会",
  "有",
  "让",
  "给",
  "做",
  "ユーザー",
  "ユーザ",
  "利用者",
  "好む",
  "好み",
  "好き",
  "使う",
  "使い",
  "使用",
  "利用",
  "常に",
  "いつも",
  "普段",
  "基本",
  "プロジェクト",
  "必要",
  "現在",
  "今",
  "毎回",
  "覚え",
  "デフォルト",
];

/// Whether `word` (ASCII, lowercase) is a stopword.
pub(super) fn is_stop(word: &str) -> bool {
  STOP.contains(&word)
}

/// Whether `word` (ASCII, lowercase) frames an entry rather than says its content.
pub(super) fn is_frame(word: &str) -> bool {
  FRAME.contains(&word)
}

/// The weight of an ASCII word (lowercase, as written) as evidence of a shared subject.
pub(super) fn word_weight(word: &str) -> f32 {
  if is_stop(word) {
    0.0
  } else if is_frame(word) {
    0.3
  } else if COMMON.contains(&word) {
    0.5
  } else {
    match word.len() {
      0..=2 => 0.5,
      3 => 0.8,
      4 | 5 => 1.0,
      _ => 1.2,
    }
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
  let doubled =
    b.len() >= 4 && b[b.len() - 1] == b[b.len() - 2] && !b"aeiouls".contains(&b[b.len() - 1]);
  if s.len() < word.len() && doubled {
    s = &s[..s.len() - 1];
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

/// The length in characters of the longest CJK frame word at the start of `run`, or 0.
pub(super) fn cjk_frame_at(run: &str) -> usize {
  CJK_FRAME
    .iter()
    .filter(|w| run.starts_with(*w))
    .map(|w| w.chars().count())
    .max()
    .unwrap_or(0)
}

/// Words that turn a statement into its opposite, in English (as folded words).
const NEGATIONS: &[&str] = &[
  "not",
  "never",
  "no",
  "don't",
  "doesn't",
  "didn't",
  "isn't",
  "aren't",
  "won't",
  "can't",
  "cannot",
  "shouldn't",
  "mustn't",
  "dont",
  "doesnt",
  "stop",
  "stopped",
  "avoid",
  "avoids",
  "without",
];

/// Whether an ASCII word (lowercase) negates.
pub(super) fn is_negation(word: &str) -> bool {
  NEGATIONS.contains(&word)
}

/// Chinese and Japanese negations, found as substrings of a run.
const CJK_NEGATIONS: &[&str] = &[
  "不",
  "没",
  "别",
  "勿",
  "禁止",
  "ない",
  "ません",
  "なかった",
  "禁止",
  "不要",
];

/// Whether a CJK run holds a negation.
pub(super) fn has_cjk_negation(run: &str) -> bool {
  CJK_NEGATIONS.iter().any(|n| run.contains(n))
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
    assert_eq!(word_weight("vitest"), 1.2);
    assert_eq!(cjk_frame_at("用户喜欢"), 2);
    assert_eq!(cjk_frame_at("ユーザーは"), 4);
    assert_eq!(cjk_frame_at("回答"), 0);
  }
}
