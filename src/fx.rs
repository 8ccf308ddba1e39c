//! A fast hasher for the read model's integer keys (character pairs, id hashes): one multiply
//! per key instead of SipHash's rounds — the load hashes millions of them. Keys come from
//! entry texts, which are bounded by their budgets, so flooding a map is not a concern.
#![forbid(unsafe_code)]

use std::hash::{BuildHasherDefault, Hasher};

/// The Fx hash (as in rustc): rotate, xor, multiply; rotated on `finish`.
#[derive(Debug, Default, Clone, Copy)]
pub struct Fx(u64);

const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for Fx {
  fn write(&mut self, bytes: &[u8]) {
    for &b in bytes {
      self.write_u64(u64::from(b));
    }
  }

  fn write_u64(&mut self, n: u64) {
    self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(K);
  }

  fn write_u32(&mut self, n: u32) {
    self.write_u64(u64::from(n));
  }

  fn finish(&self) -> u64 {
    // A multiply carries low bits up, never high bits down, and the table indexes by the low
    // bits: without the rotation, pairs that share their second character share a bucket run.
    self.0.rotate_left(26)
  }
}

/// `HashMap<_, _, FxBuild>`.
pub type FxBuild = BuildHasherDefault<Fx>;

#[cfg(test)]
mod tests {
  use super::*;
  use std::hash::BuildHasher;

  #[test]
  fn keys_that_differ_only_in_high_bits_spread_over_the_low_bits() {
    // Character pairs with the same second character: a table indexes by the low bits.
    let build = FxBuild::default();
    let mut buckets: Vec<u64> = (0x4e00u64..0x4e00 + 1000)
      .map(|c| build.hash_one((c << 32) | 0x7684) & 1023)
      .collect();
    buckets.sort_unstable();
    buckets.dedup();
    assert!(
      buckets.len() > 500,
      "{} distinct buckets of 1024",
      buckets.len()
    );
  }
}
