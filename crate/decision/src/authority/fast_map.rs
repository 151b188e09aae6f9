//! A map for the engine's small string-keyed tables (request lookups, agent names, tools).
//! FNV-1a instead of SipHash: these maps hold a handful of keys, and SipHash's resistance to
//! collision flooding bought nothing while costing about a tenth of a decision (callgrind).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// FNV-1a, 64 bits.
#[derive(Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashMap` hashed with FNV-1a (64-bit): fast for the short keys NSO uses.
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;
