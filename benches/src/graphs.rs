//! Synthetic graphs for the diffusion benchmarks and the dense-reference comparison.

use gos_core::graph::ppr::TransitionMatrix;
use gos_core::rng::SplitMix64;
use gos_synth::SynthLibrary;
use std::io::{self, Write};
use std::path::Path;

/// Weighted entries `(from, to, weight)` before row normalization, as
/// [`TransitionMatrix::from_weighted_entries`] takes them.
pub type Entries = Vec<(u32, u32, f64)>;

/// The graph of the toolchain baseline (shared/docs/toolchain-notes.md): `n` nodes, `2n`
/// uniformly random directed edges of weight 1 (self loops skipped), each with a reverse
/// entry of weight 0.5, so about `4n` nonzeros (average degree ~4). Random graphs are
/// expanders: diffusion mass spreads over the whole graph, the worst case for local push.
pub fn random_entries(n: usize, seed: u64) -> Entries {
    let mut rng = SplitMix64::new(seed);
    let mut e = Vec::with_capacity(4 * n);
    for _ in 0..2 * n {
        let u = rng.below(n) as u32;
        let v = rng.below(n) as u32;
        if u != v {
            e.push((u, v, 1.0));
            e.push((v, u, 0.5));
        }
    }
    e
}

/// The planted relations of a synthetic library ([`SynthLibrary::planted_edges`]) as
/// dependency edges of weight 1 with the default reverse factor 1.0: what `gos build`
/// induces on that library, without building it.
pub fn planted_entries(lib: &SynthLibrary) -> Entries {
    lib.planted_edges()
        .into_iter()
        .flat_map(|(u, v)| [(u, v, 1.0), (v, u, 1.0)])
        .collect()
}

/// `k` distinct seed nodes with weights `k, k-1, ..., 1` (BM25-like decreasing weights), as
/// a dense personalization vector of length `n`.
pub fn seed_vector(n: usize, k: usize, seed: u64) -> Vec<f64> {
    let mut rng = SplitMix64::new(seed ^ 0x5eed);
    let mut p = vec![0.0; n];
    let mut placed = 0;
    while placed < k.min(n) {
        let u = rng.below(n);
        if p[u] == 0.0 {
            p[u] = (k - placed) as f64;
            placed += 1;
        }
    }
    p
}

/// Build the matrix of `entries` over `n` nodes.
pub fn matrix(n: usize, entries: Entries) -> TransitionMatrix {
    TransitionMatrix::from_weighted_entries(n, entries)
}

/// Write `n`, the entries and the personalization vector as text for the numpy reference
/// (`benches/ppr_dense_reference.py`): first line `n m`, then `m` lines `from to weight`,
/// then one line with the `n` personalization values.
///
/// # Errors
/// I/O errors writing `path`.
pub fn write_for_reference(path: &Path, n: usize, entries: &Entries, p: &[f64]) -> io::Result<()> {
    let mut f = io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(f, "{n} {}", entries.len())?;
    for (u, v, w) in entries {
        writeln!(f, "{u} {v} {w}")?;
    }
    let line: Vec<String> = p.iter().map(|x| format!("{x}")).collect();
    writeln!(f, "{}", line.join(" "))?;
    f.flush()
}
