//! The in-memory search index over ASCII-folded entry texts: words and non-ASCII character
//! pairs, each with the sorted list of slots (entries) that contain it.
//!
//! It answers exactly, with no re-check against the texts (which it does not hold):
//! - a needle of ASCII letters and digits only lies inside one *word* (a maximal run of ASCII
//!   letters and digits) of every text containing it, so its entries are the union of the
//!   postings of the words containing it — a common word costs its postings, not the store;
//! - a needle of 1 or 2 characters with a non-ASCII one: every occurrence of a character `c`
//!   starts a pair `(c, next)` (`next` = end of text), and every pair with a non-ASCII
//!   character is indexed, so such a needle is one pair or the union of the pairs `c` starts.
//!
//! Every other needle is the caller's ([`Grams::lookup`] returns `None`). Postings may hold
//! slots the caller has since retired; the caller filters them and [`Grams::compact`]s.
#![forbid(unsafe_code)]

use std::collections::HashMap;

use crate::fx::FxBuild;
use crate::postings::{union, Postings, Slot};
use crate::words::Words;

/// The end-of-text marker in a pair (one past the last Unicode scalar value).
const END: u32 = 0x11_0000;

fn pair_key(a: char, b: u32) -> u64 {
  (u64::from(u32::from(a)) << 32) | u64::from(b)
}

/// The word and pair index.
#[derive(Debug, Default)]
pub struct Grams {
  words: Words,
  pairs: HashMap<u64, Postings, FxBuild>,
}

impl Grams {
  /// Index `folded` (an ASCII-folded text) under `slot`, which must exceed every slot indexed so
  /// far (postings stay sorted by construction).
  pub fn insert(&mut self, slot: Slot, folded: &str) {
    for word in folded
      .split(|c: char| !c.is_ascii_alphanumeric())
      .filter(|w| !w.is_empty())
    {
      self.words.add(word, slot);
    }
    let mut chars = folded.chars().peekable();
    while let Some(c) = chars.next() {
      let next = chars.peek().copied();
      if !c.is_ascii() || next.is_some_and(|n| !n.is_ascii()) {
        let key = pair_key(c, next.map_or(END, u32::from));
        self
          .pairs
          .entry(key)
          .and_modify(|p| p.push(slot))
          .or_insert(Postings::One(slot));
      }
    }
  }

  /// The slots whose text contains `folded` (sorted, possibly including retired slots), or
  /// `None` when the needle is not a shape this index answers.
  pub fn lookup(&self, folded: &str) -> Option<Vec<Slot>> {
    if !folded.is_empty() && folded.bytes().all(|b| b.is_ascii_alphanumeric()) {
      return Some(self.words.containing(folded));
    }
    let mut chars = folded.chars();
    let (first, second, third) = (chars.next()?, chars.next(), chars.next());
    match (second, third) {
      (None, None) if !first.is_ascii() => {
        // Every pair `first` starts (a walk over the pairs: 1-character needles are rare).
        let lead = u64::from(u32::from(first));
        Some(union(
          self
            .pairs
            .iter()
            .filter(|(k, _)| *k >> 32 == lead)
            .map(|(_, p)| p),
        ))
      }
      (Some(second), None) if !first.is_ascii() || !second.is_ascii() => Some(
        self
          .pairs
          .get(&pair_key(first, u32::from(second)))
          .map_or_else(Vec::new, |p| p.iter().collect()),
      ),
      _ => None,
    }
  }

  /// Renumber: `remap[old]` is the new slot of a kept one (increasing in `old`), `None` for a
  /// retired one. Words and pairs left with no slot are dropped.
  pub fn compact(&mut self, remap: &[Option<Slot>]) {
    self.words.compact(remap);
    self.pairs = std::mem::take(&mut self.pairs)
      .into_iter()
      .filter_map(|(k, p)| p.remapped(remap).map(|p| (k, p)))
      .collect();
  }

  /// Release growth slack after a bulk load.
  pub fn shrink(&mut self) {
    self.words.shrink();
    self.pairs.values_mut().for_each(Postings::shrink);
    self.pairs.shrink_to_fit();
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  fn brute(texts: &[&str], needle: &str) -> Vec<Slot> {
    (0..texts.len() as Slot)
      .filter(|&s| texts[s as usize].contains(needle))
      .collect()
  }

  #[test]
  fn answers_words_and_short_non_ascii_needles_exactly() {
    let texts = [
      "run the tests; contests too",
      "pnpm 偏好 简洁",
      "偏",
      "test",
      "a😀b 好",
      "testsuite-x",
    ];
    let mut g = Grams::default();
    for (i, t) in texts.iter().enumerate() {
      g.insert(i as Slot, t);
    }
    for needle in [
      "tests", "test", "t", "x", "pnpm", "zz", "偏", "偏好", "好", "😀", "a😀", "😀b", " 好",
    ] {
      assert_eq!(g.lookup(needle), Some(brute(&texts, needle)), "{needle:?}");
    }
    for needle in [";", "; ", "tests;", "偏好 ", "a b"] {
      assert_eq!(g.lookup(needle), None, "{needle:?} is not the index's");
    }
  }

  #[test]
  fn compaction_renumbers_and_drops_empty_grams() {
    let mut g = Grams::default();
    g.insert(0, "alpha 偏好");
    g.insert(1, "beta");
    g.insert(2, "alphabet 偏");
    g.compact(&[None, Some(0), Some(1)]);
    assert_eq!(g.lookup("alpha"), Some(vec![1]));
    assert_eq!(g.lookup("bet"), Some(vec![0, 1]));
    assert_eq!(g.lookup("偏好"), Some(vec![]));
    assert_eq!(g.lookup("偏"), Some(vec![1]));
    assert!(!g.words.has("alpha"));
  }
}
