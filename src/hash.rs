//! Hex digests: SHA-256 for content identity, SHA-1 for short stable IDs.

use sha1::Sha1;
use sha2::{Digest, Sha256};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Lowercase hex of `bytes`.
pub fn to_hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(HEX[(b >> 4) as usize] as char);
        out.push(HEX[(b & 0xf) as usize] as char);
    }
    out
}

/// SHA-256 of `data` as 64 lowercase hex characters.
pub fn sha256_hex(data: &[u8]) -> String {
    to_hex(&Sha256::digest(data))
}

/// SHA-1 of `data` as 40 lowercase hex characters.
pub fn sha1_hex(data: &[u8]) -> String {
    to_hex(&Sha1::digest(data))
}

/// Incremental SHA-256 for streamed values.
#[derive(Default, Clone)]
pub struct Sha256Stream(Sha256);

impl Sha256Stream {
    /// Feeds more bytes.
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// The hex digest of everything fed so far.
    pub fn finish_hex(self) -> String {
        to_hex(&self.0.finalize())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(sha1_hex(b"abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
        let mut s = Sha256Stream::default();
        s.update(b"a");
        s.update(b"bc");
        assert_eq!(s.finish_hex(), sha256_hex(b"abc"));
    }
}
