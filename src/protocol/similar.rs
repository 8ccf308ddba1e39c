//! Which stored entries a new one most likely duplicates or updates: a small, deterministic
//! lexical score, with no model and no network. It only produces hints for the approver and
//! the model; a write is never refused for being similar (duplicates stay legal).
//!
//! ## Design
//!
//! - **Tokens** (`similar/profile.rs`): the text is NFKC-folded (fullwidth `ｐｎｐｍ` is `pnpm`),
//!   ASCII words are lowercased and lightly stemmed, compounds (`node20`, `src/main.rs`) count by
//!   their parts, Han and Hangul runs give character bigrams and content unigrams, a katakana
//!   run is one word, hiragana is grammar.
//! - **Weights** come from a token's shape and short lists (`similar/lexicon.rs`), since no
//!   corpus statistics exist at write time: a stopword weighs 0, a frame word of a memory entry
//!   ("user", "prefers", "uses", `用户`, `喜欢`, `ユーザー`) 0.3, a common technical word 0.5,
//!   other words 0.8–1.2 by length; a CJK bigram 1.0 when both characters are content.
//! - **The score** blends the weighted Dice coefficient of the two token sets with their
//!   containment (shared weight over the smaller side), so a fact restated with a trailing
//!   detail still scores high while sharing a frame ("The user prefers …") scores low.
//! - **Update or look-alike**: each text also keeps its values (numbers, versions, ports,
//!   dates, paths, URLs, identifiers, backtick and quoted spans, names) with the word before
//!   each as its label. An update changes a value (one on each side, of compatible kinds, the
//!   same label when there is one) while the texts share a subject: content words worth
//!   [`SUBJECT_MIN`] or more. A look-alike shares only frame words and changes the content
//!   word, so it has no subject in common and its score stays low.
//! - **Thresholds** (chosen on `tests/similar/pairs.txt`, checked on a hold-out set and on five
//!   layers of unrelated entries; `tests/similar_corpus.rs` prints the table): a pair is named
//!   at [`NAME_MIN`], or at [`UPDATE_MIN`] when it has the shape of an update; it is a
//!   duplicate at [`DUPLICATE_MIN`] when no value changed and neither text alone says "not".
#![forbid(unsafe_code)]

mod lexicon;
mod profile;
mod scan;
mod terms;

use std::fmt::Write as _;

use profile::{Parts, Tok, Value};

pub use terms::search_terms;

/// How much of the score is the Dice coefficient (the rest is containment).
const DICE_SHARE: f32 = 0.6;
/// The score from which a pair is named to the approver.
pub const NAME_MIN: f64 = 0.5;
/// The score from which a pair with the shape of an update (a changed value, a shared subject)
/// is named.
pub const UPDATE_MIN: f64 = 0.4;
/// The score from which a pair with no changed value is a duplicate.
pub const DUPLICATE_MIN: f64 = 0.72;
/// The weight of shared content words (each worth 0.5 or more) that makes a shared subject:
/// about one real word.
pub const SUBJECT_MIN: f32 = 0.9;

/// How a new text relates to a stored one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Relation {
  /// The same fact, reworded (or verbatim).
  Duplicate,
  /// The same subject with a different value: a number, version, name, path, date… changed.
  Update,
  /// The same fact said differently (a paraphrase), or closely related: worth a look.
  Related,
}

/// A hint that a new text is like a stored one.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Hint {
  /// 0..1, higher is more similar (3 decimals).
  pub score: f64,
  /// How the new text relates to the stored one.
  pub relation: Relation,
  /// Why, in words a person reads: "same words", "same words but Node 18 → 20 (a version)",
  /// "same subject: pnpm, npm".
  pub reason: String,
}

/// What comparing needs of one text, computed once (tokens, n-grams, values…).
#[derive(Debug, Clone)]
pub struct Profile {
  parts: Parts,
}

impl Profile {
  /// The profile of `text`.
  pub fn of(text: &str) -> Profile {
    Profile {
      parts: profile::build(text),
    }
  }
}

/// The overlap of two token sets, from one merge of the sorted lists.
#[derive(Default)]
struct Overlap<'a> {
  shared: f32,
  /// Shared weight of content tokens (each 0.5 or more).
  subject: f32,
  /// The heaviest tokens shared, only in the new text, only in the stored one.
  top_shared: Top<'a>,
  top_new: Top<'a>,
  top_old: Top<'a>,
}

/// The three heaviest tokens seen (ties keep the first).
#[derive(Default)]
struct Top<'a>([Option<&'a Tok>; 3]);

impl<'a> Top<'a> {
  fn offer(&mut self, tok: &'a Tok) {
    if tok.weight < 0.5 {
      return;
    }
    let slot = self
      .0
      .iter()
      .position(|t| t.is_none_or(|t| t.weight < tok.weight));
    if let Some(at) = slot {
      self.0[at..].rotate_right(1);
      self.0[at] = Some(tok);
    }
  }

  fn words(&self) -> String {
    let shown: Vec<&str> = self.0.iter().flatten().map(|t| t.shown.as_str()).collect();
    shown.join(", ")
  }

  fn is_empty(&self) -> bool {
    self.0[0].is_none()
  }
}

fn overlap<'a>(new: &'a [Tok], old: &'a [Tok]) -> Overlap<'a> {
  let mut o = Overlap::default();
  let (mut i, mut j) = (0, 0);
  while i < new.len() || j < old.len() {
    match (new.get(i), old.get(j)) {
      (Some(a), Some(b)) if a.key == b.key => {
        let w = a.weight.min(b.weight);
        o.shared += w;
        if w >= 0.5 {
          o.subject += w;
        }
        o.top_shared.offer(a);
        (i, j) = (i + 1, j + 1);
      }
      (Some(a), Some(b)) if a.key < b.key => {
        o.top_new.offer(a);
        i += 1;
      }
      (Some(a), None) => {
        o.top_new.offer(a);
        i += 1;
      }
      (_, Some(b)) => {
        o.top_old.offer(b);
        j += 1;
      }
      (None, None) => break,
    }
  }
  o
}

/// The most values of each side looked at for a changed pair: enough for any entry, and it
/// keeps a huge text's comparison linear.
const MAX_VALUES: usize = 24;

/// Whether `parts` holds `key` as a token or a value.
fn holds(parts: &Parts, key: u64) -> bool {
  parts.value_keys.binary_search(&key).is_ok()
    || parts.toks.binary_search_by_key(&key, |t| t.key).is_ok()
}

/// A value of the stored text replaced by one of the new text: each is absent from the other
/// text; same label first, else the first pair of compatible kinds.
fn changed_value<'a>(new: &'a Parts, old: &'a Parts) -> Option<(&'a Value, &'a Value)> {
  let only = |a: &'a Parts, b: &'a Parts| -> Vec<&'a Value> {
    let vals = a.values.iter().filter(|v| !holds(b, v.key));
    vals.take(MAX_VALUES).collect()
  };
  let (gone, came) = (only(old, new), only(new, old));
  let label = |v: &Value| v.label.as_ref().map(|l| l.0);
  let same_label = gone.iter().find_map(|g| {
    let c = came
      .iter()
      .find(|c| label(c).is_some() && label(c) == label(g) && c.kind.group() == g.kind.group())?;
    Some((*g, *c))
  });
  same_label.or_else(|| {
    gone.iter().find_map(|g| {
      let c = came.iter().find(|c| c.kind.group() == g.kind.group())?;
      Some((*g, *c))
    })
  })
}

/// `Some(hint)` when `new` is similar enough to `old` to name to an approver; `None` otherwise.
///
/// Named: a score of [`NAME_MIN`] or more, or of [`UPDATE_MIN`] or more when a value changed
/// under a shared subject. Cheap: one merge of two sorted token lists, plus a bounded look at
/// the values.
pub fn compare(new: &Profile, old: &Profile) -> Option<Hint> {
  let (a, b) = (&new.parts, &old.parts);
  if a.total <= 0.0 || b.total <= 0.0 {
    return None;
  }
  let o = overlap(&a.toks, &b.toks);
  let dice = 2.0 * o.shared / (a.total + b.total);
  let containment = o.shared / a.total.min(b.total);
  let score = f64::from(DICE_SHARE * dice + (1.0 - DICE_SHARE) * containment.min(1.0));
  let subject = o.subject >= SUBJECT_MIN;
  let change = subject.then(|| changed_value(a, b)).flatten();
  if score < UPDATE_MIN || (score < NAME_MIN && change.is_none()) {
    return None;
  }
  let flip = a.negated != b.negated;
  let (relation, reason) = match change {
    Some((gone, came)) => (Relation::Update, update_reason(&o, gone, came)),
    None if flip && score >= DUPLICATE_MIN => (
      Relation::Update,
      "same words, but one of them says not".to_string(),
    ),
    None if score >= DUPLICATE_MIN => (Relation::Duplicate, duplicate_reason(&o)),
    None => (
      Relation::Related,
      format!("same subject: {}", o.top_shared.words()),
    ),
  };
  Some(Hint {
    score: (score.min(1.0) * 1000.0).round() / 1000.0,
    relation,
    reason,
  })
}

fn duplicate_reason(o: &Overlap<'_>) -> String {
  let mut reason = String::from("same words");
  match (o.top_new.is_empty(), o.top_old.is_empty()) {
    (true, true) => {}
    (false, true) => {
      let _ = write!(reason, "; the new one adds {}", o.top_new.words());
    }
    (true, false) => {
      let _ = write!(reason, "; the stored one also says {}", o.top_old.words());
    }
    (false, false) => {
      let _ = write!(
        reason,
        ", reworded ({} / {})",
        o.top_old.words(),
        o.top_new.words()
      );
    }
  }
  reason
}

fn update_reason(o: &Overlap<'_>, gone: &Value, came: &Value) -> String {
  let label = match (&gone.label, &came.label) {
    (Some(g), Some(c)) if g.0 == c.0 && g.1 != gone.shown => format!("{} ", c.1),
    _ => String::new(),
  };
  let kind = if gone.kind == came.kind {
    came.kind.describe()
  } else {
    gone.kind.describe()
  };
  format!(
    "same subject ({}) but {label}{} → {} ({kind})",
    o.top_shared.words(),
    gone.shown,
    came.shown
  )
}

#[cfg(test)]
mod tests {
  use super::*;

  fn hint(new: &str, old: &str) -> Option<Hint> {
    compare(&Profile::of(new), &Profile::of(old))
  }

  #[test]
  fn the_same_text_is_a_duplicate() {
    let h = hint("Prefers pnpm over npm", "Prefers pnpm over npm").unwrap();
    assert_eq!(h.relation, Relation::Duplicate);
    assert_eq!(h.score, 1.0);
    assert_eq!(h.reason, "same words");
  }

  #[test]
  fn a_changed_version_is_an_update() {
    let h = hint("The API runs on Node 20", "The API runs on Node 18").unwrap();
    assert_eq!(h.relation, Relation::Update, "{h:?}");
    assert!(
      h.reason.contains("Node 18 → 20 (a version)"),
      "{}",
      h.reason
    );
  }

  #[test]
  fn a_shared_frame_is_not_a_subject() {
    assert_eq!(
      hint("The user prefers tabs", "The user prefers dark mode"),
      None
    );
    assert_eq!(hint("用户喜欢深色主题", "用户喜欢简洁的回答"), None);
  }

  #[test]
  fn unrelated_texts_are_not_named() {
    assert_eq!(
      hint("Deploys go through `make ship`", "用户喜欢简洁的回答"),
      None
    );
    assert_eq!(hint("", "anything"), None);
  }
}
