//! Which slot of a fact two texts differ in: the subject and attribute ("the EU cluster", "the
//! user's Docker Hub username", `测试环境的地址`, `注文画面`), or the value ("1.29", "kwame-dev",
//! "trunk"). Only a difference in the value slot, or one the new text says is a change, makes an
//! update; only texts of which at most one says anything the other does not make a duplicate.
//! Read from the phrases of each text ([`super::profile::Phrase`]), not from word lists: a word
//! of one text that qualifies a noun both share names another thing of that kind, whatever the
//! word is.
#![forbid(unsafe_code)]

use super::overlap::{Bits, Overlap};
use super::profile::{Phrase, Profile, AFTER_COPULA, AFTER_TOPIC, GRAM, QUANTITY, VALUE};

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
  /// `Some(true)` when in both texts the word comes before anything they share: the subject
  /// itself differs ("the EU cluster …" / "the US cluster …"), which no change word makes one
  /// fact.
  pub(super) qualified: Option<bool>,
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
    let any = |o: Own| o.word || o.value;
    any(self.new) && any(self.old)
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

/// One text of a pair, read against the other: which of its tokens the other shares, and which
/// of its bigrams are seams.
struct Side<'a> {
  parts: &'a Profile,
  other: &'a Profile,
  /// By the index of a token in `parts.toks`: whether the other text has it, and whether it is a
  /// seam (see [`seams`]).
  shared: &'a Bits,
  seam: Bits,
}

impl<'a> Side<'a> {
  /// `a` against `b`, whose shared tokens the overlap marked: one pass over `a`'s phrases.
  fn of(a: &'a Profile, b: &'a Profile, shared: &'a Bits) -> Side<'a> {
    Side {
      parts: a,
      other: b,
      shared,
      seam: seams(a, shared),
    }
  }

  fn shares(&self, t: &Phrase) -> bool {
    self.shared.contains(t.tok as usize)
  }
}

/// The indexes of `a`'s tokens that are bigrams and seams against the text whose tokens `shared`
/// marks: its own, next to one both share (`本升` of `版本升到` against `版本是`). Without a
/// segmenter, such a bigram joins a word both say to one only `a` says, and is no word of `a`'s
/// own; `华东` against `华北` is one, as no neighbour of it is shared. A bigram that is a seam in
/// one place and a word in another is a word.
fn seams(a: &Profile, shared: &Bits) -> Bits {
  let seq: &[Phrase] = &a.seq;
  let (mut seams, mut words) = (Bits::new(a.keys.len()), Bits::new(a.keys.len()));
  let shares = |t: &Phrase| shared.contains(t.tok as usize);
  for (i, t) in seq.iter().enumerate() {
    if t.flags & GRAM == 0 || shares(t) {
      continue;
    }
    // A CJK character is at most 4 bytes: the bigram one character away starts within 4.
    let shared_next_to = |n: &Phrase| n.flags & GRAM != 0 && n.at.abs_diff(t.at) <= 4 && shares(n);
    let before = seq[..i].last().is_some_and(shared_next_to);
    let after = seq.get(i + 1).is_some_and(shared_next_to);
    match before || after {
      true => seams.insert(t.tok as usize),
      false => words.insert(t.tok as usize),
    }
  }
  seams.remove_all(&words);
  seams
}

/// How `new` and `old` differ, from their overlap: a few passes over each one's phrases.
pub(super) fn diff(new: &Profile, old: &Profile, o: &Overlap<'_>) -> Diff {
  let a = Side::of(new, old, &o.new.shared);
  let b = Side::of(old, new, &o.old.shared);
  let (new_opening, old_opening) = (opening(&a), opening(&b));
  // The lone word before a copula is the copula's value ("Kofi is the tech lead for …"), a
  // name even where a capital only opens the sentence.
  let inverted = |side: &Side<'_>, s: Option<Opening>| {
    let first = side.parts.seq.first().map(|t| t.tok);
    first.filter(|_| s == Some(Opening::Copula))
  };
  let (new_qualifies, old_qualifies) = (qualifies(&a), qualifies(&b));
  let qualified = new_qualifies.zip(old_qualifies).map(|(x, y)| x && y);
  Diff {
    new: own(&a, inverted(&a, new_opening)),
    old: own(&b, inverted(&b, old_opening)),
    qualified,
    narrowed: new_qualifies.is_some() || old_qualifies.is_some(),
    member_swap: members(&a) && members(&b),
    subject: subject(new_opening, old_opening),
    // The first phrase of "Kofi is …" is the value, not the subject.
    head_swap: new_opening == Some(Opening::Shared)
      && old_opening == Some(Opening::Shared)
      && head_words(&a)
      && head_words(&b),
  }
}

/// What one text has that the other lacks (`value_word`: the index of a token to read as a
/// value).
fn own(side: &Side<'_>, value_word: Option<u32>) -> Own {
  let (a, b) = (side.parts, side.other);
  let mut own = Own::default();
  let mut phrase: Option<u16> = None;
  let mut one_slot = true;
  let toks = a.toks.iter().enumerate();
  for (i, t) in toks.filter(|(i, _)| !side.shared.contains(*i)) {
    let value = t.flags & VALUE != 0 || u32::try_from(i).ok() == value_word;
    let seam = side.seam.contains(i);
    let counts = match value {
      true => t.weight >= OWN_VALUE,
      false => t.weight >= OWN_WORD && !seam,
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
  own.value |= a.values.iter().any(|v| !b.holds(v.key));
  own
}

/// Whether one text has a word of its own (no amount: "3 weeks" counts weeks, it does not name
/// them) that qualifies a noun or name the other shares: followed, in its phrase, by a shared
/// word that is no amount ("the EU cluster", "Apple Pay", `SlackのID`; not "Thursdays 10:00");
/// `Some(true)` when that word comes before anything the texts share.
fn qualifies(side: &Side<'_>) -> Option<bool> {
  let seq: &[Phrase] = &side.parts.seq;
  let first_shared = seq.iter().position(|t| side.shares(t));
  // Backwards, so that each token knows the next shared one of its phrase: one pass.
  let mut next_shared: Option<&Phrase> = None;
  let mut found = None;
  for (i, t) in seq.iter().enumerate().rev() {
    if next_shared.is_some_and(|n| n.phrase != t.phrase) {
      next_shared = None;
    }
    if side.shares(t) {
      next_shared = Some(t);
      continue;
    }
    // A part of a path or a code span qualifies nothing: its next part is the same value.
    let same_value = |n: &Phrase| t.part_of != 0 && n.part_of == t.part_of;
    let qualified = |n: &Phrase| n.flags & QUANTITY == 0 && !same_value(n);
    if t.flags & QUANTITY == 0 && next_shared.is_some_and(qualified) {
      found = Some(i);
    }
  }
  found.map(|i| first_shared.is_none_or(|s| i < s))
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

/// What the first phrase of one text is to the other, if anything.
fn opening(side: &Side<'_>) -> Option<Opening> {
  let a = side.parts;
  let first = a.seq.first()?.phrase;
  let phrase = || a.seq.iter().take_while(|t| t.phrase == first);
  if phrase().any(|t| side.shares(t)) {
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

/// Whether the first phrase of one text holds a content word the other lacks (no value, no
/// seam).
fn head_words(side: &Side<'_>) -> bool {
  let (seq, toks) = (&side.parts.seq, &side.parts.toks);
  let first = seq.first().map(|t| t.phrase);
  let mut phrase = seq.iter().take_while(|t| Some(t.phrase) == first);
  phrase.any(|t| {
    let tok = toks.get(t.tok as usize);
    let heavy = tok.is_some_and(|x| x.weight >= OWN_WORD);
    let seam = side.seam.contains(t.tok as usize);
    heavy && t.flags & VALUE == 0 && !side.shares(t) && !seam
  })
}

/// Whether one text has names of its own (no amounts: "requires Node 20" / "… Node 18" is a new
/// version), all in a phrase next to one that holds a verb of an attribute with many values.
fn members(side: &Side<'_>) -> bool {
  let (seq, sets) = (&side.parts.seq, &side.parts.set_phrases);
  // Phrases are numbered in the order of the text, and `set_phrases` is in that order too.
  let near = |p: u16| {
    let from = sets.partition_point(|s| *s < p.saturating_sub(1));
    sets.get(from).is_some_and(|s| *s <= p.saturating_add(1))
  };
  let own_name = |t: &&Phrase| t.flags & (VALUE | QUANTITY) == VALUE && !side.shares(t);
  let mut names = seq.iter().filter(own_name).peekable();
  names.peek().is_some() && names.all(|t| near(t.phrase))
}
