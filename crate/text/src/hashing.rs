//! A fast 64-bit hash of byte strings, eight bytes at a time (multiply and rotate, as rustc's
//! FxHash), for the core's memos: the shell analyser's recent commands and the engine's call
//! hash. Not resistant to crafted collisions: every user compares the full key on a match.

const K: u64 = 0x517c_c1b7_2722_0a95;

/// A running hash: feed it parts, each closed by its length, then read it.
#[derive(Debug, Clone, Copy, Default)]
pub struct WordHash(u64);

impl WordHash {
    /// Adds `bytes` as one part (its length ends it, so `"ab","c"` and `"a","bc"` differ).
    pub fn feed(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            self.mix(u64::from_le_bytes(w));
        }
        let rest = words.remainder();
        let mut tail = [0u8; 8];
        if let Some(room) = tail.get_mut(..rest.len()) {
            room.copy_from_slice(rest);
        }
        self.mix(u64::from_le_bytes(tail));
        self.mix(bytes.len() as u64);
    }

    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }

    /// The hash of what was fed.
    pub fn value(self) -> u64 {
        self.0
    }

    /// The hash of one byte string.
    pub fn of(bytes: &[u8]) -> u64 {
        let mut h = WordHash::default();
        h.feed(bytes);
        h.value()
    }
}

#[cfg(test)]
mod tests {
    use super::WordHash;

    #[test]
    fn parts_are_told_apart_and_every_byte_counts() {
        let parts = |ps: &[&str]| {
            let mut h = WordHash::default();
            for p in ps {
                h.feed(p.as_bytes());
            }
            h.value()
        };
        assert_ne!(parts(&["ab", "c"]), parts(&["a", "bc"]));
        assert_ne!(parts(&["abc"]), parts(&["abc", ""]));
        let base = "npm test # 12345678901234567890";
        for i in 0..base.len() {
            let mut changed = base.as_bytes().to_vec();
            changed[i] ^= 1;
            assert_ne!(
                WordHash::of(&changed),
                WordHash::of(base.as_bytes()),
                "byte {i}"
            );
        }
        assert_eq!(WordHash::of(b"same"), WordHash::of(b"same"));
    }
}
