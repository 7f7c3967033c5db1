//! Real-shaped SKILL.md lengths: the `real` body mode pads each synthetic SKILL.md with filler
//! prose up to a length drawn from the size distribution of a real skill library, so that
//! build-time figures (parse MB/s, index size, dedup shingles) scale as they would on real text.
//!
//! The distribution is a quantile table of SKILL.md sizes in bytes measured on the shared real
//! library (`../shared/data/library`, 5,584 packages, 46.9 MB, mean 8,402 bytes, median 6,224),
//! read by linear interpolation between quantiles (inverse-CDF sampling). Filler words follow
//! Zipf's law with exponent 1 (word rank drawn log-uniform over [`VOCABULARY`] ranks), so that
//! frequent words are short and the term dictionary grows with the text, as in real prose.
//! Filler words are built from consonant-vowel-consonant syllables, so they never equal a
//! generated skill id, a private chain type (consonant-vowel syllables only) or an artifact
//! type the builder knows (tested).

use gos_core::rng::SplitMix64;

/// `(cumulative probability, SKILL.md bytes)` of the real library, from its smallest (140
/// bytes) to its largest (60,821 bytes) SKILL.md.
pub const REAL_SIZE_QUANTILES: &[(f64, f64)] = &[
    (0.0, 140.0),
    (0.01, 959.0),
    (0.025, 1232.0),
    (0.05, 1529.0),
    (0.10, 2220.0),
    (0.15, 2769.0),
    (0.20, 2922.0),
    (0.25, 2952.0),
    (0.30, 3057.0),
    (0.35, 3740.0),
    (0.40, 4414.0),
    (0.45, 5289.0),
    (0.50, 6224.0),
    (0.55, 7191.0),
    (0.60, 8037.0),
    (0.65, 9249.0),
    (0.70, 10351.0),
    (0.75, 11754.0),
    (0.80, 13361.0),
    (0.85, 15322.0),
    (0.90, 18106.0),
    (0.95, 22042.0),
    (0.975, 25866.0),
    (0.99, 33779.0),
    (0.995, 36446.0),
    (0.999, 51061.0),
    (1.0, 60821.0),
];

/// Distinct filler words (ranks 1..=VOCABULARY).
pub const VOCABULARY: usize = 200_000;

/// Consonant-vowel-consonant syllables of filler words.
const SYLLABLES: &[&str] = &[
    "bek", "dov", "fum", "gat", "hib", "jol", "kep", "lur", "mav", "nid", "pog", "ruz", "sef",
    "tav", "vok", "wib", "yod", "zun", "bel", "dib", "fok", "gim", "hov", "lep",
];

/// A SKILL.md size in bytes for `u` in [0, 1) (inverse CDF of [`REAL_SIZE_QUANTILES`]).
pub fn real_size(u: f64) -> usize {
    let q = REAL_SIZE_QUANTILES;
    let u = u.clamp(0.0, 1.0);
    let i = q.partition_point(|&(p, _)| p <= u).clamp(1, q.len() - 1);
    let ((p0, s0), (p1, s1)) = (q[i - 1], q[i]);
    let f = if p1 > p0 { (u - p0) / (p1 - p0) } else { 0.0 };
    (s0 + f * (s1 - s0)).round() as usize
}

/// The filler word of rank `k` (0-based): the shortest words get the smallest ranks.
pub fn word(mut k: usize) -> String {
    let n = SYLLABLES.len();
    let mut out = String::new();
    // Ranks 0..n are one syllable, the next n^2 two, and so on.
    let mut width = 1;
    let mut block = n;
    while k >= block {
        k -= block;
        width += 1;
        block *= n;
    }
    for _ in 0..width {
        out.push_str(SYLLABLES[k % n]);
        k /= n;
    }
    out
}

/// A Zipf-distributed filler word (exponent 1 over [`VOCABULARY`] ranks).
fn zipf_word(rng: &mut SplitMix64) -> String {
    let rank = (rng.unit_f64() * (VOCABULARY as f64).ln()).exp() as usize;
    word(rank.clamp(1, VOCABULARY) - 1)
}

/// Append a `## Notes` section of filler paragraphs to `md` until it holds at least `target`
/// bytes (nothing when it already does).
pub fn pad_to(md: &mut String, target: usize, rng: &mut SplitMix64) {
    if md.len() >= target {
        return;
    }
    md.push_str("\n## Notes\n\n");
    let mut in_paragraph = 0usize;
    while md.len() < target {
        let words = 6 + rng.below(13);
        for w in 0..words {
            let mut word = zipf_word(rng);
            if w == 0 {
                word[..1].make_ascii_uppercase();
            } else {
                md.push(' ');
            }
            md.push_str(&word);
        }
        md.push('.');
        in_paragraph += 1;
        if in_paragraph >= 4 + rng.below(5) {
            md.push_str("\n\n");
            in_paragraph = 0;
        } else {
            md.push(' ');
        }
    }
    md.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_the_quantile_table() {
        assert_eq!(real_size(0.0), 140);
        assert_eq!(real_size(0.5), 6224);
        assert_eq!(real_size(1.0), 60821);
        // Halfway between the 50% and 55% quantiles.
        assert_eq!(real_size(0.525), (6224 + 7191) / 2 + 1);
        let mut rng = SplitMix64::new(7);
        let n = 20_000;
        let mean = (0..n).map(|_| real_size(rng.unit_f64())).sum::<usize>() as f64 / n as f64;
        // The real library's mean is 8,402 bytes; interpolation between quantiles keeps it.
        assert!((mean - 8402.0).abs() < 400.0, "mean {mean}");
    }

    #[test]
    fn words_are_unique_short_first_and_never_known_types() {
        assert_eq!(word(0), "bek");
        assert_eq!(word(23), "lep");
        assert_eq!(word(24), "bekbek");
        let mut seen = std::collections::HashSet::new();
        for k in 0..5_000 {
            let w = word(k);
            assert!(seen.insert(w.clone()), "{w} repeats");
            assert!(
                gos_build::artifacts::known_types(&w).is_empty(),
                "{w} is an artifact type"
            );
        }
    }

    #[test]
    fn padding_reaches_the_target_and_is_deterministic() {
        let pad = |seed| {
            let mut md = String::from("# Title\n");
            pad_to(&mut md, 5_000, &mut SplitMix64::new(seed));
            md
        };
        let a = pad(1);
        assert!((5_000..5_300).contains(&a.len()), "{}", a.len());
        assert!(a.contains("## Notes"));
        assert_eq!(a, pad(1));
        assert_ne!(a, pad(2));
        let mut short = "x".repeat(6_000);
        pad_to(&mut short, 5_000, &mut SplitMix64::new(1));
        assert_eq!(short.len(), 6_000);
    }
}
