use super::*;

const EDGES: [(usize, usize); 5] = [(1, 2), (2, 3), (4, 5), (2, 3), (7, 1)];

/// `(A_t, |O_t|, B_t, ranked)` of one task.
type Case<'a> = (&'a [usize], usize, &'a [usize], &'a [usize]);

/// Four hand-labelled tasks:
/// - t1: O = A = {1, 2, 3}; B = [1, 2, 7]; ranked [1, 7, 2, 9, 3]
/// - t2: O = {4, 5}, A = {4} (5 missing); B = [4]; ranked [6, 4]
/// - t3: O = {8}, A = {} (missing); B = [1]; ranked [1]
/// - t4: O = A = {2, 3}; B = [] (no hit); ranked []
#[test]
fn f_measures_weigh_bundle_recall_and_precision() {
    assert_eq!(f_beta(0.0, 0.0, 1.0), 0.0);
    assert!((f_beta(1.0, 0.25, 1.0) - 0.4).abs() < 1e-12);
    // β = 2: 5 · 0.25 · 1 / (4 · 0.25 + 1) = 0.625.
    assert!((f_beta(1.0, 0.25, 2.0) - 0.625).abs() < 1e-12);
    // t1 of `tiny`: recall 2/3, precision 2/3, so F1 2/3; t3 (no available oracle) has none.
    let t = tiny();
    assert!((t[0].f1.unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert!((t[0].f2.unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!((t[2].f1, t[2].f2), (None, None));
    assert_eq!(t[3].f1, Some(0.0));
}

fn tiny() -> Vec<TaskScores> {
    let cases: [Case<'_>; 4] = [
        (&[1, 2, 3], 3, &[1, 2, 7], &[1, 7, 2, 9, 3]),
        (&[4], 2, &[4], &[6, 4]),
        (&[], 1, &[1], &[1]),
        (&[2, 3], 2, &[], &[]),
    ];
    cases
        .iter()
        .enumerate()
        .map(|(i, &(available, oracle_total, bundle, ranked))| {
            let matches: Vec<Vec<usize>> = available.iter().map(|&o| vec![o]).collect();
            TaskScores::compute(&TaskInput {
                available,
                matches: &matches,
                oracle_total,
                bundle,
                ranked,
                dependency_edges: &EDGES,
                context_chars: 100 * (i + 1),
                latency_ms: (i + 1) as f64,
            })
        })
        .collect()
}

fn value(name: &str) -> Option<f64> {
    summarize(&tiny())
        .into_iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, v)| v)
}

fn close(name: &str, expected: f64) {
    let v = value(name).unwrap_or_else(|| panic!("{name} undefined"));
    assert!((v - expected).abs() < 1e-12, "{name}: {v} != {expected}");
}

#[test]
fn available_recall_averages_over_t_plus() {
    // (2/3 + 1 + 0) / 3; t3 has no available oracle.
    close("recall_available", 5.0 / 9.0);
    assert_eq!(tiny()[2].recall_available, None);
}

#[test]
fn full_recall_counts_missing_oracles_as_misses() {
    // (2/3 + 1/2 + 0/1 + 0/2) / 4
    close("recall_full", 7.0 / 24.0);
}

#[test]
fn completeness_is_the_share_of_fully_covered_tasks() {
    close("completeness", 1.0 / 3.0); // only t2
}

#[test]
fn precision_of_an_empty_bundle_is_zero() {
    // (2/3 + 1/1 + 0) / 3
    close("precision", 5.0 / 9.0);
    assert_eq!(tiny()[3].precision, Some(0.0));
}

#[test]
fn co_recovery_is_pooled_over_tasks() {
    // t1: pairs (1,2),(2,3) inside A, (1,2) recovered; t2: (4,5) leaves A; t4: (2,3)
    // inside A, not recovered. (1 + 0) / (2 + 1). The duplicate (2,3) counts once.
    let t = tiny();
    assert_eq!(
        t[0].dependency_pairs,
        PairCount {
            recovered: 1,
            total: 2
        }
    );
    assert_eq!(t[1].dependency_pairs, PairCount::default());
    close("co_recovery", 1.0 / 3.0);
    assert_eq!(pooled_ratio(&[PairCount::default()]), None);
}

#[test]
fn ranked_list_metrics() {
    close("hit_at_1", 1.0 / 3.0); // t1 only
    close("mrr_at_10", (1.0 + 0.5 + 0.0) / 3.0);
    close("recall_at_10", 2.0 / 3.0);
    close("recall_at_20", 2.0 / 3.0);
    close("recall_at_50", 2.0 / 3.0);
    close("fc_at_10", 2.0 / 3.0);
    // Smaller cut-offs on t1 (ranked [1, 7, 2, 9, 3], A = {1, 2, 3}).
    let (r, a) = ([1, 7, 2, 9, 3], [1, 2, 3]);
    assert_eq!(recall_at_k(&r, &a, 2), Some(1.0 / 3.0));
    assert_eq!(recall_at_k(&r, &a, 3), Some(2.0 / 3.0));
    assert_eq!(full_coverage_at_k(&r, &a, 4), Some(0.0));
    assert_eq!(full_coverage_at_k(&r, &a, 5), Some(1.0));
    assert_eq!(mrr_at_k(&[6, 4], &[4], 1), Some(0.0));
    assert_eq!(hit_at_k(&[6, 4], &[4], 2), Some(1.0));
    assert_eq!(hit_at_k(&[6, 4], &[], 2), None);
}

#[test]
fn size_chars_and_latency() {
    close("bundle_size", (3.0 + 1.0 + 1.0 + 0.0) / 4.0);
    close("context_chars", (100.0 + 200.0 + 300.0 + 400.0) / 4.0);
    // Latencies 1, 2, 3, 4 ms: type-7 percentiles.
    close("latency_p50_ms", 2.5);
    close("latency_p95_ms", 3.85);
}

#[test]
fn with_no_copies_the_equivalent_metrics_are_the_strict_ones() {
    let all = summarize(&tiny());
    for (m, v) in &all {
        if let Some(e) = m.equivalent() {
            let ev = all.iter().find(|(n, _)| *n == e).unwrap().1;
            assert_eq!(*v, ev, "{m}");
        }
    }
}

/// Oracles 1 and 2; 10 and 11 are copies of 1, 9 would be a copy of both.
fn copies_task<'a>(bundle: &'a [usize], ranked: &'a [usize], m: &'a [Vec<usize>]) -> TaskInput<'a> {
    TaskInput {
        available: &[1, 2],
        matches: m,
        oracle_total: 3,
        bundle,
        ranked,
        dependency_edges: &[(1, 2)],
        context_chars: 0,
        latency_ms: 0.0,
    }
}

#[test]
fn two_copies_of_one_oracle_score_it_once() {
    let m = [vec![1, 10, 11], vec![2]];
    let t = TaskScores::compute(&copies_task(&[10, 11, 5], &[5, 11, 10, 2], &m));
    // Strict: the labelled packages are absent.
    assert_eq!((t.recall_available, t.precision), (Some(0.0), Some(0.0)));
    // Equivalent: oracle 1 once, neither a second hit nor a second precision credit.
    assert_eq!(t.recall_available_equiv, Some(0.5));
    assert_eq!(t.recall_full_equiv, Some(1.0 / 3.0));
    assert_eq!(t.precision_equiv, Some(1.0 / 3.0));
    assert_eq!(t.completeness_equiv, Some(0.0));
    // F2 of recall 1/2 and precision 1/3: 5·(1/6) / (4/3 + 1/2) = 5/11.
    assert!((t.f2_equiv.unwrap() - 5.0 / 11.0).abs() < 1e-12);
    // Ranked list [5, 11, 10, 2]: the first copy at rank 2, both oracles by rank 4.
    assert_eq!(
        (t.hit_at_1_equiv, t.mrr_at_10_equiv),
        (Some(0.0), Some(0.5))
    );
    assert_eq!((t.mrr_at_10, t.recall_at_10), (Some(0.25), Some(0.5)));
    assert_eq!(
        (t.recall_at_10_equiv, t.fc_at_10_equiv),
        (Some(1.0), Some(1.0))
    );
    assert_eq!(recall_at_k(&[5, 11, 10, 2], &[1, 2], 3), Some(0.0));
    // The pair (1, 2) is recovered by a copy of 1 beside 2.
    let t = TaskScores::compute(&copies_task(&[11, 2], &[], &m));
    assert_eq!(t.dependency_pairs.recovered, 0);
    assert_eq!(
        t.dependency_pairs_equiv,
        PairCount {
            recovered: 1,
            total: 1
        }
    );
    assert_eq!(
        (t.completeness, t.completeness_equiv),
        (Some(0.0), Some(1.0))
    );
}

#[test]
fn duplicates_count_once() {
    assert_eq!(available_recall(&[1, 1], &[1, 2, 2]), Some(0.5));
    assert_eq!(bundle_precision(&[1, 1, 3], &[1]), Some(0.5));
    assert_eq!(completeness(&[2, 1], &[1, 1, 2]), Some(1.0));
}

#[test]
fn empty_populations_are_undefined() {
    assert_eq!(mean([None, None]), None);
    assert_eq!(percentile(&[], 50.0), None);
    assert_eq!(percentile(&[7.0], 95.0), Some(7.0));
    assert_eq!(full_recall(&[1], &[], 0), None);
    let names: Vec<Metric> = summarize(&[]).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, Metric::ALL);
}
