//! The Fx hash of rustc, for hot lookups by short keys (node paths, ids) in the merge
//! and in [`crate::check`]. It decides only how keys are hashed; it is deterministic,
//! and no table that uses it is iterated to produce output order (callers keep to that).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A small, fast, deterministic multiply-rotate hasher: much cheaper than SipHash for
/// the short keys it serves.
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

impl FxHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.hash = (self.hash.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        crate::linemerge::fold_words(bytes, |w| self.add(w));
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// A HashMap with the Fx hasher.
pub(crate) type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// A HashSet with the Fx hasher.
pub(crate) type FxSet<T> = HashSet<T, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    fn hash_of(s: &str) -> u64 {
        BuildHasherDefault::<FxHasher>::default().hash_one(s)
    }

    #[test]
    fn same_key_same_hash_and_near_keys_differ() {
        assert_eq!(hash_of("Player/Sprite2D"), hash_of("Player/Sprite2D"));
        assert_ne!(hash_of("Player/Sprite2D"), hash_of("Player/Sprite2E"));
        assert_ne!(hash_of("a"), hash_of("a\0"));
    }

    #[test]
    fn set_membership() {
        let mut set: FxSet<&str> = FxSet::default();
        assert!(set.insert("Main/Camera"));
        assert!(!set.insert("Main/Camera"));
        assert!(set.contains("Main/Camera") && !set.contains("Main"));
    }

    #[test]
    fn a_key_hash_does_not_depend_on_the_process() {
        let hash = |w: u64| {
            let mut h = FxHasher::default();
            h.write_u64(w);
            h.finish()
        };
        assert_eq!(hash(1), 0x51_7c_c1_b7_27_22_0a_95);
    }
}
