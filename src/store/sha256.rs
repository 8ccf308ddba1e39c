//! SHA-256 for the audit hash chain and snapshot texts, by the RustCrypto `sha2` crate; checked
//! against the FIPS 180-4 test vectors below.
#![forbid(unsafe_code)]

use sha2::{Digest, Sha256};
use std::fmt::Write;

/// The SHA-256 digest of `data` as 64 lowercase hex characters.
pub fn hex_digest(data: &[u8]) -> String {
  Sha256::digest(data)
    .iter()
    .fold(String::with_capacity(64), |mut hex, byte| {
      let _ = write!(hex, "{byte:02x}");
      hex
    })
}

#[cfg(test)]
mod tests {
  use super::hex_digest;

  #[test]
  fn matches_the_standard_vectors() {
    assert_eq!(
      hex_digest(b""),
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
      hex_digest(b"abc"),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
      hex_digest(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
    assert_eq!(
      hex_digest(&[b'a'; 1_000_000]),
      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    );
    assert_eq!(hex_digest(&[0u8; 55]).len(), 64);
    assert_eq!(
      hex_digest(&[0u8; 56]),
      "d4817aa5497628e7c77e6b606107042bbba3130888c5f47a375e6179be789fbb"
    );
  }
}
