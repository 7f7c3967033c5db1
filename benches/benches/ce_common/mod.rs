//! What the two cross-encoder benches share: the 400-character task, the fixture library's
//! SKILL.md text to cut documents from, and a random-weight cross-encoder of the shape of
//! ms-marco-MiniLM-L-6-v2 (6 layers, width 384; speed does not depend on weight values).

use gos_models::cross_encoder::CrossEncoder;
use gos_models::random::{RandomModelSpec, tiny_bert_tokenizer_json, write_random_classifier};
use std::path::{Path, PathBuf};

/// The task both benches score documents against.
pub const QUERY: &str = "The county boundaries for the state are in /root/data/counties.shp, and the \
    attribute table has a POP2020 column and an ALAND column with land area in square metres. \
    Make a choropleth map of population density (people per square kilometre) in an equal-area \
    projection, with a legend and a title, and save it as /root/output/density.png. Also write \
    the density per county to /root/output/density.csv sorted from the densest county down.";

/// Size of the uncased BERT vocabulary of the MiniLM models.
const MINILM_VOCAB: usize = 30_522;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The fixture library's SKILL.md texts, in path order, joined by blank lines, as characters.
pub fn fixture_chars() -> Vec<char> {
    let mut files = Vec::new();
    let mut stack = vec![root().join("fixtures/library")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("fixture library").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == "SKILL.md") {
                files.push(p);
            }
        }
    }
    files.sort();
    let text: String = files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n\n");
    let chars: Vec<char> = text.chars().collect();
    assert!(chars.len() > 8192, "fixture library too small");
    chars
}

/// A random-weight MiniLM-L6-shaped cross-encoder written to `dir` and loaded on the CPU, with
/// the name of its vocabulary: all-MiniLM-L6-v2's uncased WordPiece (`$GOS_MODEL_DIR` or
/// `models/all-MiniLM-L6-v2`, from scripts/setup-model.sh) when present, else the tiny test
/// tokenizer, which splits unknown words into letters (longer, still realistic sequences).
pub fn minilm_cross_encoder(dir: &Path) -> (CrossEncoder, &'static str) {
    let candidates = [
        std::env::var_os("GOS_MODEL_DIR").map(|d| PathBuf::from(d).join("tokenizer.json")),
        Some(root().join("models/all-MiniLM-L6-v2/tokenizer.json")),
    ];
    let found = candidates
        .into_iter()
        .flatten()
        .find_map(|p| std::fs::read_to_string(p).ok());
    let (tokenizer, vocab, which) = match found {
        Some(t) => (t, MINILM_VOCAB, "minilm-vocab"),
        None => {
            let (t, v) = tiny_bert_tokenizer_json();
            (t, v, "tiny-vocab")
        }
    };
    let spec = RandomModelSpec::minilm_l6(vocab, 1);
    write_random_classifier(dir, &spec, &tokenizer).expect("write model");
    let device = gos_models::device::parse_device("cpu").expect("cpu");
    (CrossEncoder::load(dir, &device).expect("load"), which)
}
