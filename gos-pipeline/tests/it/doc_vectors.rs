//! The workspace cache of document vectors: the first run embeds every skill, the next reuses
//! every row, a row whose text changed is embedded again alone, and each view has its own file.

use gos_core::Workspace;
use gos_core::index::dense::vectors::Vectors;
use gos_models::cross_encoder::Architecture;
use gos_models::dense::load_embedder;
use gos_models::random::{RandomModelSpec, tiny_bert_tokenizer_json, write_random_classifier};
use gos_pipeline::DocView;
use gos_pipeline::doc_vectors::doc_vectors;

#[test]
fn document_vectors_are_cached_per_model_and_view_and_reused_by_text() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ws");
    let library = gos_testkit::fixtures().join("library");
    gos_build::build_workspace(
        &gos_build::BuildOptions {
            library,
            workspace: dir.clone(),
            relate: Default::default(),
            embed: None,
            force: false,
        },
        &gos_build::build::NoProgress,
    )
    .unwrap();
    let ws = Workspace::open(&dir).unwrap();
    let model_dir = tmp.path().join("bert");
    let (tok, vocab) = tiny_bert_tokenizer_json();
    let mut spec = RandomModelSpec::tiny(Architecture::Bert, vocab, 5);
    spec.max_positions = 512;
    write_random_classifier(&model_dir, &spec, &tok).unwrap();
    let model = load_embedder(&model_dir, &gos_models::device::Device::Cpu).unwrap();
    let n = ws.len();

    let (first, report) = doc_vectors(&ws, model.as_ref(), &DocView::Description).unwrap();
    assert_eq!((report.reused, report.embedded), (0, n));
    assert!(report.write_error.is_none() && report.path.is_file());
    assert_eq!(first.len(), n);
    let (again, report) = doc_vectors(&ws, model.as_ref(), &DocView::Description).unwrap();
    assert_eq!((report.reused, report.embedded), (n, 0));
    assert!(again == first, "reused rows are the stored rows");

    // A row whose stored text hash no longer matches is embedded again, alone, to the same
    // vector; the others are reused.
    let mut stale = Vectors::read(&report.path).unwrap();
    stale.header.text_hashes[3] = "0000000000000000".into();
    stale.data[3 * stale.header.dim] += 1.0;
    stale.write(&report.path).unwrap();
    let (fixed, report) = doc_vectors(&ws, model.as_ref(), &DocView::Description).unwrap();
    assert_eq!((report.reused, report.embedded), (n - 1, 1));
    assert_eq!(fixed.header, first.header);
    // Embedded alone instead of in a padded batch: equal up to float rounding.
    let diff = fixed
        .data
        .iter()
        .zip(&first.data)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert!(diff < 1e-4, "largest difference {diff}");

    // Another view is another file and other texts.
    let fields = DocView::Fields {
        description_chars: 300,
        body_chars: 2_500,
    };
    let (other, report) = doc_vectors(&ws, model.as_ref(), &fields).unwrap();
    assert_eq!(report.embedded, n);
    assert!(
        report
            .path
            .to_string_lossy()
            .ends_with("fields-300-2500.vec")
    );
    assert!(other.data != first.data);
    let files = std::fs::read_dir(dir.join("pipeline-vectors"))
        .unwrap()
        .count();
    assert_eq!(files, 2, "no temporary file is left behind");
}
