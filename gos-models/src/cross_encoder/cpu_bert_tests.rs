//! The CPU BERT path ([`CpuBert`], pairs packed without padding) against candle's
//! ([`BertClassifier`], padded batches with a mask) on the same random-weight models: widths
//! that are not a multiple of the kernels' 16 lanes, each activation, one and two labels. The
//! numpy reference itself is checked through [`CrossEncoder`] in `tests.rs`.

use super::bert::BertClassifier;
use super::*;
use crate::bert::{CpuBert, Packed};
use crate::random::{RandomModelSpec, tiny_bert_tokenizer_json, write_random_classifier};
use candle_transformers::models::bert::Config;

/// A random BERT classifier of width `hidden` with `heads` heads, loaded both ways.
fn both(
    dir: &Path,
    hidden: usize,
    heads: usize,
    labels: usize,
    act: &str,
) -> (BertClassifier, CpuBert) {
    let (tok, vocab) = tiny_bert_tokenizer_json();
    let mut spec = RandomModelSpec::tiny(Architecture::Bert, vocab, 23);
    spec.hidden = hidden;
    spec.heads = heads;
    spec.intermediate = 2 * hidden + 3;
    spec.num_labels = labels;
    write_random_classifier(dir, &spec, &tok).unwrap();
    let mut config: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).unwrap()).unwrap();
    config["hidden_act"] = Value::from(act);
    let config: Config = serde_json::from_value(config).unwrap();
    let load = || {
        // SAFETY: the file was just written by this test and is not modified while mapped.
        let vb = unsafe {
            VarBuilder::from_mmaped_safetensors(
                &[dir.join("model.safetensors")],
                DType::F32,
                &Device::Cpu,
            )
            .unwrap()
        };
        BertClassifier::load(vb, &config, labels).unwrap()
    };
    let cpu = load().to_cpu().unwrap();
    (load(), cpu)
}

/// Pairs of lengths 1, 9, 17, 30 (ids and types derived from the position).
fn pairs(vocab: u32) -> Vec<(Vec<u32>, Vec<u32>)> {
    [1usize, 9, 17, 30]
        .iter()
        .map(|&n| {
            let ids = (0..n).map(|i| (i as u32 * 7 + n as u32) % vocab).collect();
            let types = (0..n).map(|i| u32::from(i >= n / 2)).collect();
            (ids, types)
        })
        .collect()
}

/// Candle's logits of the pairs as one right-padded batch with a mask.
fn candle_logits(m: &BertClassifier, pairs: &[(Vec<u32>, Vec<u32>)]) -> Vec<Vec<f32>> {
    let len = pairs.iter().map(|p| p.0.len()).max().unwrap();
    let (mut ids, mut types, mut mask) = (Vec::new(), Vec::new(), Vec::new());
    for (i, t) in pairs {
        let pad = len - i.len();
        ids.extend(i.iter().copied().chain(std::iter::repeat_n(0, pad)));
        types.extend(t.iter().copied().chain(std::iter::repeat_n(0, pad)));
        mask.extend(std::iter::repeat_n(1u32, i.len()).chain(std::iter::repeat_n(0, pad)));
    }
    let t = |v: Vec<u32>| Tensor::from_vec(v, (pairs.len(), len), &Device::Cpu).unwrap();
    m.forward(&t(ids), &t(types), Some(&t(mask)))
        .unwrap()
        .to_vec2::<f32>()
        .unwrap()
}

fn packed_logits(m: &CpuBert, pairs: &[(Vec<u32>, Vec<u32>)]) -> Vec<Vec<f32>> {
    let ids: Vec<u32> = pairs.iter().flat_map(|p| p.0.clone()).collect();
    let types: Vec<u32> = pairs.iter().flat_map(|p| p.1.clone()).collect();
    let mut offsets = vec![0];
    for p in pairs {
        offsets.push(offsets.last().unwrap() + p.0.len());
    }
    m.logits(&Packed {
        ids: &ids,
        types: &types,
        offsets: &offsets,
    })
    .unwrap()
}

#[test]
fn cpu_bert_matches_candle_bert_on_padded_batches() {
    let vocab = tiny_bert_tokenizer_json().1 as u32;
    for (hidden, heads, labels, act) in [
        (32, 4, 1, "gelu"),
        (48, 3, 2, "gelu"),
        (36, 2, 1, "geluapproximate"),
        (20, 5, 2, "relu"),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let (candle, cpu) = both(tmp.path(), hidden, heads, labels, act);
        let pairs = pairs(vocab);
        let want = candle_logits(&candle, &pairs);
        let got = packed_logits(&cpu, &pairs);
        assert_eq!(got.len(), pairs.len());
        let mut spread = 0.0f32;
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.len(), labels);
            for (a, b) in g.iter().zip(w) {
                assert!((a - b).abs() < 1e-5, "{hidden}/{heads}/{act}: {a} vs {b}");
                spread = spread.max((a - want[0][0]).abs());
            }
        }
        // The pairs really score differently (the comparison is not of constants).
        assert!(spread > 1e-4, "{hidden}/{heads}/{act}: spread {spread}");
    }
}

#[test]
fn cpu_bert_rejects_out_of_range_input_without_panicking() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, cpu) = both(tmp.path(), 32, 4, 1, "gelu");
    let vocab = tiny_bert_tokenizer_json().1 as u32;
    let run = |ids: &[u32], types: &[u32], offsets: &[usize]| {
        cpu.logits(&Packed {
            ids,
            types,
            offsets,
        })
        .map_err(|e| e.to_string())
    };
    let err = run(&[2, vocab, 3], &[0, 0, 0], &[0, 3]).unwrap_err();
    assert!(err.contains("outside the vocabulary"), "{err}");
    let err = run(&[2, 5, 3], &[0, 2, 0], &[0, 3]).unwrap_err();
    assert!(err.contains("token type 2"), "{err}");
    let err = run(&[2, 5, 3], &[0, 0, 0], &[0, 2]).unwrap_err();
    assert!(err.contains("inconsistent"), "{err}");
    let long = vec![5u32; 65]; // the tiny model has 64 positions
    let err = run(&long, &[0; 65], &[0, 65]).unwrap_err();
    assert!(err.contains("over the 64 positions"), "{err}");
    assert_eq!(run(&[2, 5, 3], &[0, 0, 0], &[0, 3]).unwrap().len(), 1);
}

#[test]
fn token_batches_split_by_tokens_into_near_equal_contiguous_batches() {
    // 20 pairs of ~250 tokens under 16 x 512: one batch.
    let lens: Vec<usize> = (0..20).map(|i| 145 + (i * 37) % 155).collect();
    assert_eq!(
        token_batches(&lens, 16 * 512),
        vec![(0..20).collect::<Vec<_>>()]
    );
    // Over the budget: two batches of 5 x 100 tokens each, in input order.
    assert_eq!(
        token_batches(&[100; 10], 600),
        vec![(0..5).collect::<Vec<_>>(), (5..10).collect()]
    );
    // Every pair lands in exactly one batch, whatever the budget.
    for budget in [1, 7, 250, 1_000, 100_000] {
        let flat: Vec<usize> = token_batches(&lens, budget).concat();
        assert_eq!(flat, (0..20).collect::<Vec<_>>(), "budget {budget}");
    }
    assert!(token_batches(&[], 512).is_empty());
}
