//! MinHash signatures of shingle sets (the near-duplicate detection of [`super`]), written so
//! that the compiler vectorizes them.

/// MinHash signature of a shingle set under `seeds` (one value per seed): for each seed `s`,
/// the least `SplitMix64::new(h ^ s).next_u64()` over the shingles `h` (`u64::MAX` for an
/// empty set).
///
/// The loops run shingle by shingle with the seeds inside, which the compiler vectorizes:
/// with AVX-512 (F, DQ) eight 64-bit products and minima per instruction, chosen at run time
/// ([`signature_avx512`]); the values are the same either way (test
/// `signatures_are_the_same_on_every_path`). On the real library the signatures were about
/// half the dedup stage's CPU time.
pub(super) fn signature(set: &[u64], seeds: &[u64]) -> Vec<u64> {
    let mut mins = vec![u64::MAX; seeds.len()];
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512dq")
    {
        // SAFETY: the CPU has the features `signature_avx512` is compiled for.
        unsafe { signature_avx512(set, seeds, &mut mins) };
        return mins;
    }
    signature_into(set, seeds, &mut mins);
    mins
}

/// [`signature_into`] compiled for AVX-512 (F, DQ: 64-bit multiplies and minima in vector
/// registers).
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512DQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn signature_avx512(set: &[u64], seeds: &[u64], mins: &mut [u64]) {
    signature_into(set, seeds, mins);
}

/// Lower `mins[i]` to the least SplitMix64 output of `h ^ seeds[i]` over `h` in `set`.
#[inline(always)]
fn signature_into(set: &[u64], seeds: &[u64], mins: &mut [u64]) {
    for &h in set {
        for (m, &s) in mins.iter_mut().zip(seeds) {
            // SplitMix64::new(h ^ s).next_u64(), written out so that it vectorizes.
            let mut z = (h ^ s).wrapping_add(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            *m = (*m).min(z);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gos_core::rng::SplitMix64;

    /// The vectorized signature loop gives SplitMix64's values: the per-seed minimum of
    /// `SplitMix64::new(h ^ seed).next_u64()`, on the dispatching path (the AVX-512 copy on
    /// a CPU that has it, else the plain loop again) and the plain one.
    #[test]
    fn signatures_are_the_same_on_every_path() {
        let mut r = SplitMix64::new(5);
        let seeds: Vec<u64> = (0..64).map(|_| r.next_u64()).collect();
        for n in [0, 1, 7, 300] {
            let set: Vec<u64> = (0..n).map(|_| r.next_u64()).collect();
            let expected: Vec<u64> = seeds
                .iter()
                .map(|&s| {
                    set.iter()
                        .map(|&h| SplitMix64::new(h ^ s).next_u64())
                        .min()
                        .unwrap_or(u64::MAX)
                })
                .collect();
            assert_eq!(signature(&set, &seeds), expected, "{n} shingles");
            let mut plain = vec![u64::MAX; seeds.len()];
            signature_into(&set, &seeds, &mut plain);
            assert_eq!(plain, expected, "{n} shingles");
        }
    }
}
