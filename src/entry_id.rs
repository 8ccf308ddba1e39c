//! Entry ids held compactly — a canonical lowercase UUID (what this provider writes) as its 16
//! bytes, anything else (ids from older stores or imports) as its text — and the read model's
//! map from id to slot.
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::fx::FxBuild;
use crate::postings::Slot;

/// An entry id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EntryId {
  /// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, lowercase hex.
  Uuid([u8; 16]),
  /// Any other id.
  Other(Box<str>),
}

const DASHES: [usize; 4] = [8, 13, 18, 23];

fn hex(b: u8) -> Option<u8> {
  match b {
    b'0'..=b'9' => Some(b - b'0'),
    b'a'..=b'f' => Some(b - b'a' + 10),
    _ => None,
  }
}

fn parse_uuid(id: &str) -> Option<[u8; 16]> {
  let bytes = id.as_bytes();
  if bytes.len() != 36 || DASHES.iter().any(|&i| bytes[i] != b'-') {
    return None;
  }
  let mut nibbles = bytes
    .iter()
    .enumerate()
    .filter(|(i, _)| !DASHES.contains(i));
  let mut out = [0u8; 16];
  for byte in &mut out {
    let hi = hex(*nibbles.next()?.1)?;
    let lo = hex(*nibbles.next()?.1)?;
    *byte = hi << 4 | lo;
  }
  Some(out)
}

impl EntryId {
  /// The compact form of `id`.
  pub fn new(id: &str) -> Self {
    parse_uuid(id).map_or_else(|| EntryId::Other(id.into()), EntryId::Uuid)
  }

  /// The id's text.
  pub fn as_str(&self) -> Cow<'_, str> {
    match self {
      EntryId::Other(s) => Cow::Borrowed(s),
      EntryId::Uuid(bytes) => {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut s = String::with_capacity(36);
        for (i, b) in bytes.iter().enumerate() {
          if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
          }
          s.push(DIGITS[usize::from(b >> 4)] as char);
          s.push(DIGITS[usize::from(b & 15)] as char);
        }
        Cow::Owned(s)
      }
    }
  }
}

impl Ord for EntryId {
  /// The order of the ids' texts (for canonical UUIDs, their bytes' order is the same).
  fn cmp(&self, other: &Self) -> Ordering {
    match (self, other) {
      (EntryId::Uuid(a), EntryId::Uuid(b)) => a.cmp(b),
      _ => self.as_str().cmp(&other.as_str()),
    }
  }
}

impl PartialOrd for EntryId {
  fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
    Some(self.cmp(other))
  }
}

/// Slots by entry id: a 64-bit hash of the id → slot (16 bytes an entry where an id-keyed map
/// takes 32). The caller's `id_at(slot)` confirms a hit; an id whose hash another id already
/// holds (about once in 10^10 pairs) lives in `collided`.
#[derive(Debug)]
pub struct IdSlots {
  by_hash: HashMap<u64, Slot, FxBuild>,
  collided: HashMap<EntryId, Slot>,
  hash: fn(&EntryId) -> u64,
}

fn id_hash(id: &EntryId) -> u64 {
  let mut h = std::hash::DefaultHasher::new();
  id.hash(&mut h);
  h.finish()
}

impl Default for IdSlots {
  fn default() -> Self {
    IdSlots {
      by_hash: HashMap::default(),
      collided: HashMap::new(),
      hash: id_hash,
    }
  }
}

impl IdSlots {
  /// The slot of `id`.
  pub fn get<'a>(&self, id: &EntryId, id_at: impl Fn(Slot) -> Option<&'a EntryId>) -> Option<Slot> {
    match self.by_hash.get(&(self.hash)(id)) {
      Some(&slot) if id_at(slot) == Some(id) => Some(slot),
      _ => self.collided.get(id).copied(),
    }
  }

  /// Map `id` (mapped nowhere yet; `id_at(slot)` already answers it) to `slot`.
  pub fn insert<'a>(
    &mut self,
    id: &EntryId,
    slot: Slot,
    id_at: impl Fn(Slot) -> Option<&'a EntryId>,
  ) {
    let h = (self.hash)(id);
    match self.by_hash.get(&h) {
      Some(&other) if id_at(other).is_some_and(|o| o != id) => {
        self.collided.insert(id.clone(), slot);
      }
      _ => {
        self.by_hash.insert(h, slot);
      }
    }
  }

  /// Unmap `id`; its slot.
  pub fn remove<'a>(
    &mut self,
    id: &EntryId,
    id_at: impl Fn(Slot) -> Option<&'a EntryId>,
  ) -> Option<Slot> {
    let h = (self.hash)(id);
    match self.by_hash.get(&h) {
      Some(&slot) if id_at(slot) == Some(id) => self.by_hash.remove(&h),
      _ => self.collided.remove(id),
    }
  }

  /// Rewrite every slot.
  pub fn renumber(&mut self, f: impl Fn(&mut Slot)) {
    self.by_hash.values_mut().for_each(&f);
    self.collided.values_mut().for_each(&f);
  }

  /// How many ids are mapped.
  pub fn len(&self) -> usize {
    self.by_hash.len() + self.collided.len()
  }

  /// No id is mapped.
  pub fn is_empty(&self) -> bool {
    self.len() == 0
  }

  /// Room for `n` more ids.
  pub fn reserve(&mut self, n: usize) {
    self.by_hash.reserve(n);
  }

  /// Release growth slack.
  pub fn shrink_to_fit(&mut self) {
    self.by_hash.shrink_to_fit();
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn round_trips_and_orders_like_text() {
    let ids = [
      "0f3c2a10-9b1e-4c6d-8e2f-a1b2c3d4e5f6",
      "0f3c2a10-9b1e-4c6d-8e2f-a1b2c3d4e5f7",
      "ff3c2a10-9b1e-4c6d-8e2f-a1b2c3d4e5f6",
      "0F3C2A10-9B1E-4C6D-8E2F-A1B2C3D4E5F6",
      "legacy-1",
      "0f3c2a10-9b1e-4c6d-8e2f",
      "",
    ];
    for a in ids {
      assert_eq!(EntryId::new(a).as_str(), a);
      for b in ids {
        assert_eq!(
          EntryId::new(a).cmp(&EntryId::new(b)),
          a.cmp(b),
          "{a} vs {b}"
        );
      }
    }
    assert!(matches!(EntryId::new(ids[0]), EntryId::Uuid(_)));
    assert!(matches!(EntryId::new(ids[3]), EntryId::Other(_)));
  }

  #[test]
  fn ids_whose_hashes_collide_still_find_their_own_slots() {
    let mut slots = IdSlots {
      hash: |_| 7,
      ..IdSlots::default()
    };
    let ids: Vec<EntryId> = ["a", "b", "c"].into_iter().map(EntryId::new).collect();
    let at = |s: Slot| ids.get(s as usize);
    for (slot, id) in ids.iter().enumerate() {
      slots.insert(id, slot as Slot, at);
    }
    assert_eq!(slots.len(), 3);
    for (slot, id) in ids.iter().enumerate() {
      assert_eq!(slots.get(id, at), Some(slot as Slot));
    }
    assert_eq!(slots.remove(&ids[0], at), Some(0));
    assert_eq!(slots.get(&ids[0], at), None);
    assert_eq!(
      slots.get(&ids[2], at),
      Some(2),
      "a collided id outlives the hashed one"
    );
    assert_eq!(slots.remove(&ids[2], at), Some(2));
    assert_eq!(slots.get(&ids[1], at), Some(1));
    assert_eq!(slots.get(&EntryId::new("d"), at), None);
  }
}
