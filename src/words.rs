//! The vocabulary: every distinct word once, in one contiguous text (searched with vectorized
//! substring tests), with an open-addressing table of word ids over that text and each word's
//! postings. A word costs its bytes plus about 30 bytes.
#![forbid(unsafe_code)]

use crate::postings::{union, Postings, Slot};

/// Words are searched in slices of about this many bytes: a slice without the needle is
/// rejected by one vectorized `contains`.
const CHUNK: usize = 4096;

/// Distinct words and their postings.
#[derive(Debug, Default)]
pub struct Words {
  /// Every word, in id order, each followed by a NUL.
  text: String,
  /// Where each word starts in `text`.
  starts: Vec<u32>,
  postings: Vec<Postings>,
  /// Open addressing: `id + 1` of a word, or 0; the length is a power of two, at most half full.
  table: Vec<u32>,
}

/// FNV-1a.
fn hash(word: &str) -> usize {
  let mut h: u64 = 0xcbf2_9ce4_8422_2325;
  for b in word.bytes() {
    h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
  }
  h as usize
}

impl Words {
  fn word(&self, id: usize) -> &str {
    let start = self.starts[id] as usize;
    let end = self
      .starts
      .get(id + 1)
      .map_or(self.text.len(), |&s| s as usize)
      - 1;
    self.text.get(start..end).unwrap_or_default()
  }

  /// The table position holding `word`, or the empty position where it would go.
  fn probe(&self, word: &str) -> usize {
    let mask = self.table.len() - 1;
    let mut at = hash(word) & mask;
    loop {
      match self.table[at] {
        0 => return at,
        id if self.word(id as usize - 1) == word => return at,
        _ => at = (at + 1) & mask,
      }
    }
  }

  fn grow(&mut self) {
    let size = (self.table.len() * 2).max(64);
    self.table = vec![0; size];
    for id in 0..self.postings.len() {
      let at = self.probe(self.word(id));
      self.table[at] = id as u32 + 1;
    }
  }

  /// Record that `slot` (≥ every slot added so far) contains `word`.
  pub fn add(&mut self, word: &str, slot: Slot) {
    match self.find(word) {
      Some(id) => self.postings[id].push(slot),
      None => self.push_word(word, Postings::One(slot)),
    }
  }

  fn find(&self, word: &str) -> Option<usize> {
    if self.table.is_empty() {
      return None;
    }
    match self.table[self.probe(word)] {
      0 => None,
      id => Some(id as usize - 1),
    }
  }

  /// Append a word that is not in the vocabulary.
  fn push_word(&mut self, word: &str, postings: Postings) {
    if (self.postings.len() + 1) * 2 > self.table.len() {
      self.grow();
    }
    let at = self.probe(word);
    self.table[at] = self.postings.len() as u32 + 1;
    self.starts.push(self.text.len() as u32);
    self.text.push_str(word);
    self.text.push('\0');
    self.postings.push(postings);
  }

  /// The slots containing `needle` (ASCII letters and digits only), sorted.
  pub fn containing(&self, needle: &str) -> Vec<Slot> {
    let bytes = self.text.as_bytes();
    let mut ids: Vec<usize> = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
      let mut end = (start + CHUNK).min(bytes.len());
      while end < bytes.len() && bytes[end] != 0 {
        end += 1;
      }
      // Words and separators are ASCII: every byte offset is a char boundary.
      let chunk = self.text.get(start..end).unwrap_or_default();
      if chunk.contains(needle) {
        for (at, _) in chunk.match_indices(needle) {
          let offset = (start + at) as u32;
          let id = self.starts.partition_point(|&s| s <= offset) - 1;
          if ids.last() != Some(&id) {
            ids.push(id);
          }
        }
      }
      start = end;
    }
    union(ids.iter().map(|&id| &self.postings[id]))
  }

  /// Renumber slots (see [`Postings::remapped`]); words left with none are dropped.
  pub fn compact(&mut self, remap: &[Option<Slot>]) {
    let old = std::mem::take(self);
    for (id, postings) in old.postings.iter().enumerate() {
      if let Some(kept) = postings.remapped(remap) {
        self.push_word(old.word(id), kept);
      }
    }
    self.shrink();
  }

  /// Release growth slack after a bulk load.
  pub fn shrink(&mut self) {
    self.postings.iter_mut().for_each(Postings::shrink);
    self.text.shrink_to_fit();
    self.starts.shrink_to_fit();
    self.postings.shrink_to_fit();
  }

  /// Whether `word` is in the vocabulary.
  #[cfg(test)]
  pub fn has(&self, word: &str) -> bool {
    self.find(word).is_some()
  }
}
