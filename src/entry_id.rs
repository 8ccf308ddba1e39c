//! Entry ids held compactly: a canonical lowercase UUID (what this provider writes) as its 16
//! bytes, anything else (ids from older stores or imports) as its text.
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::cmp::Ordering;

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
}
