//! Which slot of a fact two texts differ in: the subject and attribute ("the EU cluster", "the
//! user's Docker Hub username", `测试环境的地址`, `注文画面`), or the value ("1.29", "kwame-dev",
//! "trunk"). Only a difference in the value slot, or one the new text says is a change, makes an
//! update; only texts of which at most one says anything the other does not make a duplicate.
//! Read from the phrases of each text ([`super::profile::Phrase`]), not from word lists: a word
//! of one text that qualifies a noun both share names another thing of that kind, whatever the
//! word is.
#![forbid(unsafe_code)]

use super::profile::{Parts, Phrase, AFTER_COPULA, AFTER_TOPIC, GRAM, QUANTITY, VALUE};

/// The least weight of a word of its own that says something the other text does not: a real
/// content word, as for a subject.
const OWN_WORD: f32 = 0.7;
/// The least weight of a value's token that counts as a value of its own (a one-digit number
/// weighs 0.5).
const OWN_VALUE: f32 = 0.5;

/// What one text has that the other lacks.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Own {
  /// A content word that is no part of a value ("dashboard", "retries", `健康`).
  pub(super) word: bool,
  /// A value, or a part of one ("Datadog", "1.30", "qa-api.corp.example").
  pub(super) value: bool,
  /// How many such tokens, and whether all stand in one phrase after a copula.
  count: usize,
  after_copula: bool,
}

impl Own {
  pub(super) fn any(self) -> bool {
    self.word || self.value
  }
}

/// Both texts have a word of their own that qualifies a noun both share.
#[derive(Debug, Clone, Copy)]
pub(super) struct Qualified {
  /// In both texts the word comes before anything they share: the subject itself differs ("the
  /// EU cluster …" / "the US cluster …"), which no change word makes one fact.
  pub(super) leading: bool,
}

/// Whether two texts speak of one subject, read from the first phrase of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum Subject {
  /// One of them shares no word of its subject, and is no "X is …" either: "CI runs on GitHub
  /// Actions" / "Android builds run on GitHub Actions runners" share their values only.
  #[default]
  Other,
  /// Each one's subject shares a word with the other text, or is a lone word followed by a
  /// copula, the value of "Kofi is the tech lead for …".
  Inverted,
  /// Each one's subject shares a word with the other text; or both open with names, the values
  /// of texts about the user, whose subject follows ("Uses VS Code for Java" / "Uses IntelliJ
  /// IDEA for Java").
  Shared,
}

/// How two texts differ, slot by slot.
#[derive(Debug, Default)]
pub(super) struct Diff {
  pub(super) new: Own,
  pub(super) old: Own,
  /// Each text has a word of its own that qualifies a noun both share ("the EU cluster" / "the
  /// US cluster", "CSV export" / "PDF export", `华东集群` / `华北集群`): they speak of two things
  /// of one kind (two subjects, two attributes, two members of a set), not of one thing twice.
  pub(super) qualified: Option<Qualified>,
  /// Each text has names of its own, all next to a verb of an attribute that holds many values
  /// ("accepts Visa" / "accepts Mastercard", `Excelに対応`): another member of a set.
  pub(super) member_swap: bool,
  /// One text (or both) has a word of its own that qualifies a noun both share: it speaks of a
  /// narrower thing ("the pricing page" against "the page"), maybe another one.
  pub(super) narrowed: bool,
  /// Whether the texts speak of one subject (see [`Subject`]).
  pub(super) subject: Subject,
  /// Each text has a content word of its own in its subject, its first phrase ("API docs" /
  /// "API client"): unless the new text says it changed, they speak of two things.
  pub(super) head_swap: bool,
}

impl Diff {
  /// Whether both texts say something the other does not.
  pub(super) fn swap(&self) -> bool {
    self.new.any() && self.old.any()
  }

  /// Whether what differs is one word on each side in the value slot of "X is Y" ("the default
  /// branch is called trunk" / "… master"): one value of one fact replaced another.
  pub(super) fn copula_value(&self) -> bool {
    let one = |o: Own| o.count == 1 && o.after_copula;
    one(self.new) && one(self.old)
  }

  /// Whether what differs is values, with words of its own on one side at most (a text that
  /// also names what the value is: "Python version … is 3.11" / "… use Python 3.12"), and none
  /// that qualifies a noun both share (`料金ページ` against a `ページ` that another word, or none,
  /// qualifies).
  pub(super) fn values_only(&self) -> bool {
    self.new.value && self.old.value && !(self.new.word && self.old.word) && !self.narrowed
  }
}

/// Whether `parts` holds the token `key`.
fn holds(parts: &Parts, key: u64) -> bool {
  parts.toks.binary_search_by_key(&key, |t| t.key).is_ok()
}

/// The keys of `a`'s bigrams that are seams against `b`: its own bigrams next to one `b` shares
/// (`本升` of `版本升到` against `版本是`). Without a segmenter, such a bigram joins a word both
/// say to one only `a` says, and is no word of `a`'s own; `华东` against `华北` is one, as no
/// neighbour of it is shared.
fn seams(a: &Parts, b: &Parts) -> Vec<u64> {
  let seq: &[Phrase] = &a.seq;
  let mut seams = Vec::new();
  let mut words = Vec::new();
  for (i, t) in seq.iter().enumerate() {
    if t.flags & GRAM == 0 || holds(b, t.key) {
      continue;
    }
    // A CJK character is at most 4 bytes: the bigram one character away starts within 4.
    let shared_next_to =
      |n: &Phrase| n.flags & GRAM != 0 && n.at.abs_diff(t.at) <= 4 && holds(b, n.key);
    let before = i
      .checked_sub(1)
      .and_then(|j| seq.get(j))
      .is_some_and(shared_next_to);
    let after = seq.get(i + 1).is_some_and(shared_next_to);
    match before || after {
      true => seams.push(t.key),
      false => words.push(t.key),
    }
  }
  seams.retain(|k| !words.contains(k));
  seams
}

/// How `new` and `old` differ (cheap: a pass over each text's tokens, a binary search each).
pub(super) fn diff(new: &Parts, old: &Parts) -> Diff {
  let (new_seams, old_seams) = (seams(new, old), seams(old, new));
  let (new_opening, old_opening) = (opening(new, old), opening(old, new));
  // The lone word before a copula is the copula's value ("Kofi is the tech lead for …"), a
  // name even where a capital only opens the sentence.
  let inverted = |a: &Parts, s: Option<Opening>| match s {
    Some(Opening::Copula) => a.seq.first().map(|t| t.key),
    _ => None,
  };
  let (new_qualifies, old_qualifies) = (qualifies(new, old), qualifies(old, new));
  let qualified = match (new_qualifies, old_qualifies) {
    (Some(a), Some(b)) => Some(Qualified { leading: a && b }),
    _ => None,
  };
  Diff {
    new: own(new, old, &new_seams, inverted(new, new_opening)),
    old: own(old, new, &old_seams, inverted(old, old_opening)),
    qualified,
    narrowed: new_qualifies.is_some() || old_qualifies.is_some(),
    member_swap: members(new, old) && members(old, new),
    subject: subject(new_opening, old_opening),
    // The first phrase of "Kofi is …" is the value, not the subject.
    head_swap: new_opening == Some(Opening::Shared)
      && old_opening == Some(Opening::Shared)
      && head_words(new, old, &new_seams)
      && head_words(old, new, &old_seams),
  }
}

/// What `a` has that `b` lacks (`value_word`: a word to read as a value).
fn own(a: &Parts, b: &Parts, seams: &[u64], value_word: Option<u64>) -> Own {
  let mut own = Own::default();
  let mut phrase: Option<u16> = None;
  let mut one_slot = true;
  for t in a.toks.iter().filter(|t| !holds(b, t.key)) {
    let value = t.flags & VALUE != 0 || Some(t.key) == value_word;
    let counts = match value {
      true => t.weight >= OWN_VALUE,
      false => t.weight >= OWN_WORD && !seams.contains(&t.key),
    };
    if !counts {
      continue;
    }
    own.word |= !value;
    own.value |= value;
    own.count += 1;
    one_slot &= t.flags & AFTER_COPULA != 0 && phrase.is_none_or(|p| p == t.phrase);
    phrase = Some(t.phrase);
  }
  own.after_copula = one_slot && phrase.is_some();
  // A value whose every part the other text also says (`~/.dsh/config.toml` against
  // `~/.config/dsh/config.toml`) is still a value of its own.
  let held = |key: u64| b.value_keys.binary_search(&key).is_ok() || holds(b, key);
  own.value |= a.values.iter().any(|v| !held(v.key));
  own
}

/// Whether `a` has a word of its own (no amount: "3 weeks" counts weeks, it does not name them)
/// that qualifies a noun or name `b` shares: followed, in its phrase, by a shared word that is no
/// amount ("the EU cluster", "Apple Pay", `SlackのID`; not "Thursdays 10:00"); `Some(true)` when
/// that word comes before anything the texts share.
fn qualifies(a: &Parts, b: &Parts) -> Option<bool> {
  let seq: &[Phrase] = &a.seq;
  let first_shared = seq.iter().position(|t| holds(b, t.key));
  let found = seq.iter().enumerate().find(|(i, t)| {
    if t.flags & QUANTITY != 0 || holds(b, t.key) {
      return false;
    }
    let mut rest = seq[i + 1..].iter().take_while(|n| n.phrase == t.phrase);
    let next_shared = rest.find(|n| holds(b, n.key));
    // A part of a path or a code span qualifies nothing: its next part is the same value.
    let same_value = |n: &Phrase| t.part_of != 0 && n.part_of == t.part_of;
    next_shared.is_some_and(|n| n.flags & QUANTITY == 0 && !same_value(n))
  });
  found.map(|(i, _)| first_shared.is_none_or(|s| i < s))
}

/// What the first phrase of a text is to another text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opening {
  /// It shares a word with the other text.
  Shared,
  /// One word followed by a copula: the value of "X is …", and what follows is the subject (not
  /// the topic of "X は …", which is what the text is about).
  Copula,
  /// Names alone: the value of a text whose subject is the user, left unsaid ("Uses VS Code for
  /// Java", `用户现在用 VS Code 写 Java`).
  Names,
}

/// What the first phrase of `a` is to `b`, if anything.
fn opening(a: &Parts, b: &Parts) -> Option<Opening> {
  let first = a.seq.first()?.phrase;
  let phrase = || a.seq.iter().take_while(|t| t.phrase == first);
  if phrase().any(|t| holds(b, t.key)) {
    return Some(Opening::Shared);
  }
  let next = a.seq.iter().find(|t| t.phrase != first);
  let copula = next.is_some_and(|t| t.flags & (AFTER_COPULA | AFTER_TOPIC) == AFTER_COPULA);
  if copula && phrase().count() == 1 {
    return Some(Opening::Copula);
  }
  let names = phrase().all(|t| t.flags & (VALUE | QUANTITY) == VALUE);
  names.then_some(Opening::Names)
}

/// Whether two texts that open so speak of one subject.
fn subject(new: Option<Opening>, old: Option<Opening>) -> Subject {
  use Opening::*;
  match (new, old) {
    (Some(Shared), Some(Shared)) | (Some(Names), Some(Names)) => Subject::Shared,
    (Some(Shared | Copula), Some(Shared | Copula)) => Subject::Inverted,
    _ => Subject::Other,
  }
}

/// Whether the first phrase of `a` holds a content word `b` lacks (no value, no seam).
fn head_words(a: &Parts, b: &Parts, seams: &[u64]) -> bool {
  let Some(first) = a.seq.first().map(|t| t.phrase) else {
    return false;
  };
  let mut phrase = a.seq.iter().take_while(|t| t.phrase == first);
  phrase.any(|t| {
    let word = a.toks.binary_search_by_key(&t.key, |x| x.key);
    let heavy = word.is_ok_and(|i| a.toks[i].weight >= OWN_WORD);
    heavy && t.flags & VALUE == 0 && !holds(b, t.key) && !seams.contains(&t.key)
  })
}

/// Whether `a` has names of its own (no amounts: "requires Node 20" / "… Node 18" is a new
/// version), all in a phrase next to one that holds a verb of an attribute with many values.
fn members(a: &Parts, b: &Parts) -> bool {
  let mut names = a
    .seq
    .iter()
    .filter(|t| t.flags & (VALUE | QUANTITY) == VALUE && !holds(b, t.key))
    .peekable();
  names.peek().is_some() && names.all(|t| a.set_phrases.iter().any(|p| p.abs_diff(t.phrase) <= 1))
}
