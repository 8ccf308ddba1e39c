//! STUB (replaced by the measured scorer): how a new text relates to a stored one.
#![forbid(unsafe_code)]

use std::collections::HashSet;

use serde::Serialize;

/// How a new text relates to a stored one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Relation {
  /// The same fact, reworded (or verbatim).
  Duplicate,
  /// The same subject with a different value.
  Update,
  /// The same fact said differently, or closely related.
  Related,
}

/// A hint that a new text is like a stored one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hint {
  /// 0..1.
  pub score: f64,
  /// What the new text is to the stored one.
  pub relation: Relation,
  /// Why, in words.
  pub reason: String,
}

/// What comparing needs of one text.
#[derive(Debug, Clone)]
pub struct Profile {
  grams: HashSet<String>,
}

impl Profile {
  /// The profile of `text`.
  pub fn of(text: &str) -> Profile {
    let lower = text.to_ascii_lowercase();
    let chars: Vec<char> = lower.chars().filter(|c| c.is_alphanumeric()).collect();
    let grams = chars.windows(2).map(|w| w.iter().collect()).collect();
    Profile { grams }
  }
}

/// `Some(hint)` when `new` is like `old`.
pub fn compare(new: &Profile, old: &Profile) -> Option<Hint> {
  let shared = new.grams.intersection(&old.grams).count() as f64;
  let total = (new.grams.len() + old.grams.len()) as f64;
  let score = if total == 0.0 {
    0.0
  } else {
    2.0 * shared / total
  };
  (score >= 0.6).then(|| Hint {
    score,
    relation: if score > 0.9 {
      Relation::Duplicate
    } else {
      Relation::Related
    },
    reason: "same words".into(),
  })
}

/// Up to `max` FTS5 phrase terms to find candidates for `text`.
pub fn search_terms(text: &str, max: usize) -> Vec<String> {
  let lower = text.to_ascii_lowercase();
  let mut words: Vec<String> = lower
    .split(|c: char| !c.is_alphanumeric())
    .filter(|w| w.chars().count() >= 3)
    .map(str::to_string)
    .collect();
  words.sort_by_key(|w| std::cmp::Reverse(w.len()));
  words.dedup();
  words.truncate(max);
  words
}
