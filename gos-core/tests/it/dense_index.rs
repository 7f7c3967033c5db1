//! HNSW (instant-distance) against exact search, and the vectors/HNSW files round trip.

use gos_core::index::dense::Vectors;
use gos_core::index::dense::search::{
    DenseIndex, HnswParams, build_hnsw, check_hnsw_rows, exact_search, hnsw_search, read_hnsw,
    write_hnsw,
};
use gos_core::rng::SplitMix64;

/// `n` unit vectors of `dim` Gaussian components (uniform on the sphere), deterministic.
fn random_unit_vectors(n: usize, dim: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut rng = SplitMix64::new(seed);
    let mut uniform = move || ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    (0..n)
        .map(|_| {
            let v: Vec<f64> = (0..dim)
                .map(|_| {
                    // Box-Muller
                    let (u1, u2) = (uniform(), uniform());
                    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
                })
                .collect();
            let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            v.iter().map(|x| (x / norm) as f32).collect()
        })
        .collect()
}

fn vectors(rows: Vec<Vec<f32>>) -> Vectors {
    let dim = rows[0].len();
    let hashes = (0..rows.len()).map(|i| format!("h{i}")).collect();
    Vectors::from_rows("random".into(), "card".into(), dim, rows, hashes).unwrap()
}

#[test]
fn hnsw_recall_at_10_on_5000_random_unit_vectors_is_at_least_0_95() {
    let v = vectors(random_unit_vectors(5_000, 384, 7));
    let hnsw = build_hnsw(&v, &HnswParams::default());
    let queries = random_unit_vectors(100, 384, 99);
    let mut found = 0usize;
    for q in &queries {
        let exact: Vec<usize> = exact_search(&v, q, 10).into_iter().map(|h| h.0).collect();
        let approx: Vec<usize> = hnsw_search(&hnsw, q, 10).into_iter().map(|h| h.0).collect();
        assert_eq!(approx.len(), 10);
        found += approx.iter().filter(|n| exact.contains(n)).count();
    }
    let recall = found as f64 / (10 * queries.len()) as f64;
    eprintln!(
        "HNSW recall@10 = {recall:.4} (ef_search {})",
        HnswParams::default().ef_search
    );
    assert!(recall >= 0.95, "recall@10 {recall}");
}

#[test]
fn exact_search_orders_by_cosine_and_hnsw_files_round_trip() {
    let rows = random_unit_vectors(300, 16, 3);
    let v = vectors(rows.clone());
    // A row's nearest neighbour is itself, with cosine 1.
    let top = exact_search(&v, &rows[42], 5);
    assert_eq!(top[0].0, 42);
    assert!((top[0].1 - 1.0).abs() < 1e-5);
    assert!(top.windows(2).all(|w| w[0].1 >= w[1].1));
    assert!(exact_search(&v, &rows[0], 0).is_empty());
    assert_eq!(exact_search(&v, &rows[0], 1000).len(), 300);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hnsw-card.cbor");
    let hnsw = build_hnsw(&v, &HnswParams::default());
    write_hnsw(&hnsw, &path).unwrap();
    let back = read_hnsw(&path).unwrap();
    check_hnsw_rows(&back, 300, &path).unwrap();
    // An index naming rows the vectors file lacks is refused at open, not indexed later.
    let err = check_hnsw_rows(&back, 299, &path).unwrap_err().to_string();
    assert!(err.contains("row 299") && err.contains("rebuild"), "{err}");
    assert_eq!(
        hnsw_search(&back, &rows[42], 5),
        hnsw_search(&hnsw, &rows[42], 5)
    );
    let index = DenseIndex::new(v, Some(back));
    assert!(index.is_approximate());
    assert_eq!(index.search(&rows[7], 1)[0].0, 7);

    std::fs::write(&path, b"not cbor").unwrap();
    let err = match read_hnsw(&path) {
        Ok(_) => panic!("garbage decoded as an HNSW index"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("cannot decode the HNSW index"), "{err}");
}
