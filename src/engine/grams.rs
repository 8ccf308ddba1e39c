//! A large layer's texts in memory, indexed by their character trigrams: which of them contain
//! a search term, the question the store's FTS5 trigram index answers slowly for common trigrams
//! (their doclists span the whole store). Built from one read of the layer, patched with this
//! connection's own writes, dropped when another connection writes.
#![forbid(unsafe_code)]

use rustc_hash::FxHashMap;

/// Entries a term may be found in before it is too common to tell candidates apart.
const TERM_ROWS: usize = 256;
/// A term whose rarest trigram is in more entries than this is a common word's.
const COMMON: usize = 4 * TERM_ROWS;
/// The rarest trigrams of a term that are intersected: the others change few answers.
const RAREST: usize = 3;

/// Three characters, 21 bits each.
type Gram = u64;

/// The trigrams of `text`, ASCII-lowercased (as search terms are).
fn grams(text: &str) -> impl Iterator<Item = Gram> + '_ {
  let mut window: Gram = 0;
  text.chars().enumerate().filter_map(move |(i, c)| {
    let c = c.to_ascii_lowercase() as Gram;
    window = ((window << 21) | c) & ((1 << 63) - 1);
    (i >= 2).then_some(window)
  })
}

/// One large layer: its `(id, text)` rows by slot (a removed one left empty), and for each
/// trigram the slots whose text holds it, ascending.
#[derive(Debug, Default)]
pub struct Grams {
  rows: Vec<(String, String)>,
  slots: FxHashMap<String, u32>,
  postings: FxHashMap<Gram, Vec<u32>>,
}

impl Grams {
  /// The index of `rows`.
  pub fn of(rows: Vec<(String, String)>) -> Grams {
    let mut g = Grams::default();
    rows.into_iter().for_each(|(id, text)| g.push(id, text));
    g
  }

  /// How many entries the layer holds now.
  pub fn len(&self) -> usize {
    self.slots.len()
  }

  /// Adds an entry this connection wrote.
  pub fn push(&mut self, id: String, text: String) {
    let Ok(slot) = u32::try_from(self.rows.len()) else {
      return; // four billion rows: never in one layer
    };
    for gram in grams(&text) {
      let list = self.postings.entry(gram).or_default();
      if list.last() != Some(&slot) {
        list.push(slot);
      }
    }
    self.slots.insert(id.clone(), slot);
    self.rows.push((id, text));
  }

  /// Forgets an entry this connection removed or rewrote (its postings stay, and are skipped).
  pub fn remove(&mut self, id: &str) {
    if let Some(slot) = self.slots.remove(id) {
      self.rows[slot as usize] = Default::default();
    }
  }

  /// The slots whose text holds the [`RAREST`] rarest trigrams of `term` (ASCII case folded) —
  /// the entries that contain it, and the rare text holding those trigrams apart, which only
  /// adds a candidate — unless more than [`TERM_ROWS`] do.
  fn containing(&self, term: &str) -> Option<Vec<u32>> {
    let lists = grams(term).map(|g| self.postings.get(&g).map_or(&[][..], Vec::as_slice));
    let mut lists: Vec<&[u32]> = lists.collect();
    lists.sort_by_key(|l| l.len());
    let (first, rest) = lists.split_first()?;
    if first.len() > COMMON {
      return None;
    }
    let mut slots = first.to_vec();
    for list in rest.iter().take(RAREST - 1) {
      slots.retain(|s| list.binary_search(s).is_ok());
    }
    slots.retain(|&s| !self.rows[s as usize].0.is_empty());
    (slots.len() <= TERM_ROWS).then_some(slots)
  }

  /// Up to `limit` entries that contain the most of `terms` (a term found in more than
  /// [`TERM_ROWS`] entries tells nothing apart and is passed over), most first, newest first
  /// among equals.
  pub fn found(&self, terms: &[String], limit: usize) -> Vec<(&str, &str)> {
    let mut hits: FxHashMap<u32, usize> = FxHashMap::default();
    for slot in terms.iter().filter_map(|t| self.containing(t)).flatten() {
      *hits.entry(slot).or_default() += 1;
    }
    let mut ranked: Vec<(usize, u32)> = hits.into_iter().map(|(s, n)| (n, s)).collect();
    ranked.sort_unstable_by(|a, b| b.cmp(a));
    ranked.truncate(limit);
    let rows = ranked.iter().map(|&(_, s)| &self.rows[s as usize]);
    rows.map(|(id, t)| (id.as_str(), t.as_str())).collect()
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  fn layer(texts: &[&str]) -> Grams {
    let rows = texts.iter().enumerate();
    Grams::of(
      rows
        .map(|(i, t)| (format!("e{i}"), t.to_string()))
        .collect(),
    )
  }

  fn ids(found: Vec<(&str, &str)>) -> Vec<String> {
    found.into_iter().map(|(id, _)| id.to_string()).collect()
  }

  #[test]
  fn terms_are_found_by_their_trigrams_ascii_case_folded() {
    let g = layer(&[
      "Deployed with `make ship`",
      "Prefers PNPM",
      "用户喜欢简洁的回答",
    ]);
    let terms = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(ids(g.found(&terms(&["deploy"]), 5)), ["e0"]);
    assert_eq!(ids(g.found(&terms(&["pnpm"]), 5)), ["e1"]);
    assert_eq!(ids(g.found(&terms(&["简洁的"]), 5)), ["e2"]);
    assert!(g.found(&terms(&["ship it"]), 5).is_empty());
  }

  #[test]
  fn entries_sharing_more_terms_rank_first_and_removed_ones_drop_out() {
    let mut g = layer(&["uses pnpm", "uses pnpm and vitest", "vitest only"]);
    let terms = ["pnpm".to_string(), "vitest".to_string()];
    assert_eq!(ids(g.found(&terms, 1)), ["e1"]);
    g.remove("e1");
    g.push("e1".into(), "now bun".into());
    assert_eq!(ids(g.found(&terms, 5)), ["e2", "e0"]);
    assert_eq!(g.len(), 3);
  }

  #[test]
  fn a_term_in_too_many_entries_is_passed_over() {
    let texts: Vec<String> = (0..=TERM_ROWS)
      .map(|i| format!("common word {i}"))
      .collect();
    let mut g = Grams::of(
      texts
        .into_iter()
        .enumerate()
        .map(|(i, t)| (i.to_string(), t))
        .collect(),
    );
    g.push("rare".into(), "common word and a rarity".into());
    let terms = ["common".to_string(), "rarity".to_string()];
    assert_eq!(ids(g.found(&terms, 5)), ["rare"]);
  }
}
