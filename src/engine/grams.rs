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

/// Each trigram's slots, ascending: those of the rows read, in one range of `read` (counted,
/// then filled: one allocation, not one per trigram), then those this connection wrote since.
#[derive(Debug, Default)]
pub struct Postings {
  lists: FxHashMap<Gram, (u32, u32, Vec<u32>)>,
  read: Vec<u32>,
}

impl Postings {
  /// The postings of `rows`' texts by slot: the part of [`Grams::of`] that reads the texts,
  /// apart so that two layers' are built at once.
  pub fn of(rows: &[(String, String)]) -> Postings {
    let mut lists: FxHashMap<Gram, (u32, u32, Vec<u32>)> = FxHashMap::default();
    // Counted first: how many slots, and the last slot counted (plus one).
    for (slot, (_, text)) in (1..u32::MAX).zip(rows) {
      for gram in grams(text) {
        let (n, last, _) = lists.entry(gram).or_default();
        if *last != slot {
          (*n, *last) = (*n + 1, slot);
        }
      }
    }
    let mut end = 0;
    for (n, last, _) in lists.values_mut() {
      (*n, *last, end) = (end, end, end + *n);
    }
    let mut read = vec![0; end as usize];
    for (slot, (_, text)) in (0..u32::MAX).zip(rows) {
      for gram in grams(text) {
        if let Some((start, end, _)) = lists.get_mut(&gram) {
          if *end == *start || read[*end as usize - 1] != slot {
            read[*end as usize] = slot;
            *end += 1;
          }
        }
      }
    }
    Postings { lists, read }
  }

  fn add(&mut self, slot: u32, text: &str) {
    for gram in grams(text) {
      let (_, _, list) = self.lists.entry(gram).or_default();
      if list.last() != Some(&slot) {
        list.push(slot);
      }
    }
  }

  /// The slots of `gram`: those read, then those written.
  fn get(&self, gram: Gram) -> [&[u32]; 2] {
    let lists = self.lists.get(&gram);
    lists.map_or([&[], &[]], |(start, end, list)| {
      [&self.read[*start as usize..*end as usize], list]
    })
  }
}

/// One large layer: its `(id, text)` rows by slot (a removed one left empty), and for each
/// trigram the slots whose text holds it, ascending.
#[derive(Debug, Default)]
pub struct Grams {
  rows: Vec<(String, String)>,
  slots: FxHashMap<String, u32>,
  postings: Postings,
}

impl Grams {
  /// The index of `rows`, given their [`Postings`].
  pub fn of(rows: Vec<(String, String)>, postings: Postings) -> Grams {
    let slots = (0..u32::MAX)
      .zip(&rows)
      .map(|(slot, (id, _))| (id.clone(), slot));
    Grams {
      slots: slots.collect(),
      rows,
      postings,
    }
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
    self.postings.add(slot, &text);
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
    let mut lists: Vec<[&[u32]; 2]> = grams(term).map(|g| self.postings.get(g)).collect();
    lists.sort_by_key(|[read, written]| read.len() + written.len());
    let (first, rest) = lists.split_first()?;
    if first[0].len() + first[1].len() > COMMON {
      return None;
    }
    let mut slots = first.concat();
    for [read, written] in rest.iter().take(RAREST - 1) {
      slots.retain(|s| read.binary_search(s).is_ok() || written.binary_search(s).is_ok());
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

  fn of(rows: Vec<(String, String)>) -> Grams {
    let postings = Postings::of(&rows);
    Grams::of(rows, postings)
  }

  fn layer(texts: &[&str]) -> Grams {
    let rows = texts.iter().enumerate();
    of(
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
    // A term found both in the rows read and in those written since.
    g.push("e3".into(), "pnpm again".into());
    assert_eq!(ids(g.found(&terms[..1], 5)), ["e3", "e0"]);
  }

  #[test]
  fn a_term_in_too_many_entries_is_passed_over() {
    let texts: Vec<String> = (0..=TERM_ROWS)
      .map(|i| format!("common word {i}"))
      .collect();
    let mut g = of(
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
