//! Posting lists: the sorted slots of the entries that contain a word or a character pair.
#![forbid(unsafe_code)]

/// An entry's position in the read model.
pub type Slot = u32;

/// A sorted, duplicate-free slot list: one slot inline (most words are rare), more as
/// LEB128-encoded gaps (a common word's gaps are mostly 1 byte: a quarter of a `Vec<u32>`).
#[derive(Debug, Clone)]
pub enum Postings {
  /// One slot.
  One(Slot),
  /// Two or more: the last slot (appends encode their gap from it) and the encoded gaps.
  Many(Box<Many>),
}

/// The encoded form of two or more slots.
#[derive(Debug, Clone)]
pub struct Many {
  last: Slot,
  gaps: Vec<u8>,
}

fn put_gap(out: &mut Vec<u8>, mut gap: u32) {
  while gap >= 0x80 {
    out.push((gap as u8) | 0x80);
    gap >>= 7;
  }
  out.push(gap as u8);
}

/// The slots of a posting list, ascending.
pub struct Gaps<'a> {
  bytes: std::slice::Iter<'a, u8>,
  at: Slot,
  one: Option<Slot>,
}

impl Iterator for Gaps<'_> {
  type Item = Slot;

  fn next(&mut self) -> Option<Slot> {
    if let Some(s) = self.one.take() {
      return Some(s);
    }
    let mut gap = 0u32;
    let mut shift = 0;
    loop {
      let b = *self.bytes.next()?;
      gap |= u32::from(b & 0x7f) << shift;
      if b < 0x80 {
        break;
      }
      shift += 7;
    }
    self.at += gap;
    Some(self.at)
  }
}

impl Postings {
  /// The slots, ascending.
  pub fn iter(&self) -> Gaps<'_> {
    match self {
      Postings::One(s) => Gaps {
        bytes: [].iter(),
        at: 0,
        one: Some(*s),
      },
      Postings::Many(many) => Gaps {
        bytes: many.gaps.iter(),
        at: 0,
        one: None,
      },
    }
  }

  /// Append `slot` (slots arrive in increasing order; a repeat of the last is ignored).
  pub fn push(&mut self, slot: Slot) {
    match self {
      Postings::One(s) if *s >= slot => {}
      Postings::One(s) => {
        let mut gaps = Vec::with_capacity(4);
        put_gap(&mut gaps, *s);
        put_gap(&mut gaps, slot - *s);
        *self = Postings::Many(Box::new(Many { last: slot, gaps }));
      }
      Postings::Many(many) => {
        if many.last < slot {
          put_gap(&mut many.gaps, slot - many.last);
          many.last = slot;
        }
      }
    }
  }

  /// Keep the slots `remap` maps, renumbered; `None` when nothing is left.
  pub fn remapped(&self, remap: &[Option<Slot>]) -> Option<Postings> {
    let mut kept = self
      .iter()
      .filter_map(|s| remap.get(s as usize).copied().flatten());
    let mut p = Postings::One(kept.next()?);
    kept.for_each(|s| p.push(s));
    p.shrink();
    Some(p)
  }

  /// Release growth slack.
  pub fn shrink(&mut self) {
    if let Postings::Many(many) = self {
      many.gaps.shrink_to_fit();
    }
  }
}

/// The sorted union of posting lists.
pub fn union<'a>(lists: impl Iterator<Item = &'a Postings>) -> Vec<Slot> {
  let lists: Vec<&Postings> = lists.collect();
  match lists.as_slice() {
    [] => Vec::new(),
    [one] => one.iter().collect(),
    _ => {
      let mut bits: Vec<u64> = Vec::new();
      for s in lists.iter().flat_map(|l| l.iter()) {
        let word = s as usize / 64;
        if word >= bits.len() {
          bits.resize(word + 1, 0);
        }
        bits[word] |= 1 << (s % 64);
      }
      let mut out = Vec::new();
      for (w, &word) in bits.iter().enumerate() {
        let mut word = word;
        while word != 0 {
          out.push((w * 64) as Slot + word.trailing_zeros());
          word &= word - 1;
        }
      }
      out
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn encodes_any_gaps_and_unions_exactly() {
    let slots = [0u32, 1, 127, 128, 300, 16_384, 2_000_000, 4_000_000_000];
    let mut p = Postings::One(slots[0]);
    for &s in &slots[1..] {
      p.push(s);
      p.push(s);
    }
    assert_eq!(p.iter().collect::<Vec<_>>(), slots);
    let q = Postings::One(5);
    assert_eq!(
      union([&p, &q].into_iter()),
      [0, 1, 5, 127, 128, 300, 16_384, 2_000_000, 4_000_000_000]
    );
    let remap: Vec<Option<Slot>> = (0..301).map(|s| (s % 2 == 0).then_some(s / 2)).collect();
    assert_eq!(
      p.remapped(&remap).map(|r| r.iter().collect::<Vec<_>>()),
      Some(vec![0, 64, 150])
    );
  }
}
