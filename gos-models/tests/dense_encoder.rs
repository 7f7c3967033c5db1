//! The sentence encoder against an independent reference.
//!
//! The constants below come from `scripts/encoder_reference.py`: a float64 numpy forward pass of
//! all-MiniLM-L6-v2 read straight from model.safetensors, tokenized by Python `tokenizers` with
//! batch-longest padding and truncation at 256 tokens (the sentence-transformers pipeline), mean
//! pooling and L2 normalization. Regenerate with
//! `.venv/bin/python scripts/encoder_reference.py models/all-MiniLM-L6-v2`.
//!
//! Needs the model unpacked by `scripts/setup-model.sh` (or `GOS_MODEL_DIR`). Without it the
//! tests skip with a message, unless `GOS_REQUIRE_MODEL=1` (set by `.ci/run`) makes that a failure.

use gos_core::index::dense::search::dot;
use gos_models::dense::SentenceEncoder;
use gos_models::device::Device;
use std::path::PathBuf;

fn model_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("GOS_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../models/all-MiniLM-L6-v2")
        });
    if dir.join("model.safetensors").is_file() {
        return Some(dir);
    }
    let msg = format!(
        "no sentence encoder at {} (run scripts/setup-model.sh or set GOS_MODEL_DIR)",
        dir.display()
    );
    if std::env::var("GOS_REQUIRE_MODEL").as_deref() == Ok("1") {
        panic!("{msg}");
    }
    eprintln!("SKIP: {msg}");
    None
}

fn long_text() -> String {
    vec!["Convert the shapefile to GeoJSON, reproject it to EPSG:4326 and render a choropleth."; 30]
        .join(" ")
}

/// (first 8 dimensions, checksum = sum_i v_i * (i mod 7 + 1)) per sentence, from the reference.
const REFERENCE: [([f32; 8], f32); 6] = [
    (
        [
            0.134177, -0.032900, -0.024804, 0.041439, -0.036348, 0.041814, 0.031217, 0.037202,
        ],
        3.931838,
    ),
    (
        [
            0.100130, -0.019275, 0.017466, 0.055746, -0.072660, 0.040779, 0.030093, 0.040514,
        ],
        4.901192,
    ),
    (
        [
            0.026722, -0.039124, 0.074647, 0.044596, -0.016923, 0.023000, -0.072788, 0.038787,
        ],
        0.950216,
    ),
    (
        [
            0.007600, -0.031008, 0.069563, 0.093676, 0.041967, 0.067589, -0.039468, 0.007761,
        ],
        1.575083,
    ),
    (
        [
            0.025551, 0.029335, -0.024013, -0.004857, -0.101403, 0.012173, -0.022156, 0.061265,
        ],
        2.750886,
    ),
    (
        [
            -0.014925, -0.022857, -0.000277, -0.020144, -0.042010, -0.004435, -0.106604, 0.053290,
        ],
        -2.73062,
    ),
];

/// Upper triangle of the reference cosine matrix, row by row.
const COSINES: [f32; 15] = [
    0.768879, 0.026716, 0.065852, 0.105191, -0.040007, // row 0
    0.030066, 0.081626, 0.093350, -0.064175, // row 1
    0.587541, 0.008017, -0.021894, // row 2
    -0.005762, -0.050464, // row 3
    0.192919,  // row 4
];

#[test]
fn embeddings_match_the_numpy_reference() {
    let Some(dir) = model_dir() else { return };
    let enc = SentenceEncoder::load(&dir, &Device::Cpu).unwrap();
    assert_eq!(enc.dim(), 384);
    assert_eq!(enc.max_seq_length(), 256);
    let long = long_text();
    let texts = [
        "The cat sits on the mat.",
        "A cat is sitting on a rug.",
        "Stock markets fell sharply on Monday.",
        "Share prices dropped at the start of the week.",
        "How do I bake sourdough bread?",
        long.as_str(),
    ];
    let v = enc.encode(&texts).unwrap();
    assert_eq!(v.len(), 6);
    for (i, (first8, checksum)) in REFERENCE.iter().enumerate() {
        let norm: f32 = dot(&v[i], &v[i]).sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "text {i}: norm {norm}");
        for d in 0..8 {
            assert!(
                (v[i][d] - first8[d]).abs() < 1e-4,
                "text {i} dim {d}: {} vs reference {}",
                v[i][d],
                first8[d]
            );
        }
        let sum: f32 = v[i]
            .iter()
            .enumerate()
            .map(|(d, x)| x * ((d % 7) + 1) as f32)
            .sum();
        assert!(
            (sum - checksum).abs() < 1e-4,
            "text {i}: checksum {sum} vs {checksum}"
        );
    }
    let mut k = 0;
    for i in 0..6 {
        for j in i + 1..6 {
            let c = dot(&v[i], &v[j]);
            assert!(
                (c - COSINES[k]).abs() < 1e-4,
                "cos({i},{j}) = {c} vs {}",
                COSINES[k]
            );
            k += 1;
        }
    }
}

#[test]
fn a_text_embeds_the_same_alone_and_padded_in_a_batch() {
    let Some(dir) = model_dir() else { return };
    let enc = SentenceEncoder::load(&dir, &Device::Cpu).unwrap();
    let long = long_text();
    let alone = enc.encode(&["The cat sits on the mat."]).unwrap();
    let batch = enc.encode(&["The cat sits on the mat.", &long]).unwrap();
    let diff = alone[0]
        .iter()
        .zip(&batch[0])
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert!(diff < 1e-5, "padding changed the vector by {diff}");
    // The long text is cut at 256 tokens, not at the 128 of the shipped tokenizer.json: its
    // vector differs from the one of its first ~128 tokens.
    let first_half: String = long.chars().take(long.len() / 4).collect();
    let half = enc.encode(&[&first_half]).unwrap();
    assert!(dot(&half[0], &batch[1]) < 0.9999);
    assert!(
        enc.model_id().starts_with("all-MiniLM-L6-v2@"),
        "{}",
        enc.model_id()
    );
}

#[test]
fn a_missing_model_directory_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = SentenceEncoder::load(dir.path(), &Device::Cpu)
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing config.json"), "{err}");
    assert!(err.contains("setup-model.sh"), "{err}");
}
