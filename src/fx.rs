//! A fast hasher for the read model's integer keys (character pairs, id hashes): one multiply
//! per key instead of SipHash's rounds — the load hashes millions of them. Keys come from
//! entry texts, which are bounded by their budgets, so flooding a map is not a concern.
#![forbid(unsafe_code)]

use std::hash::{BuildHasherDefault, Hasher};

/// The Fx hash (as in rustc): rotate, xor, multiply.
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
    self.0
  }
}

/// `HashMap<_, _, FxBuild>`.
pub type FxBuild = BuildHasherDefault<Fx>;
