//! Tests of the I/O and mention rules.

use super::*;
use gos_core::Field;

/// A node with only its id, name and types set (also used by `io_filters`' tests).
pub(crate) fn node(id: &str, name: &str, inputs: &[&str], outputs: &[&str]) -> SkillNode {
    SkillNode {
        id: id.into(),
        name: name.into(),
        description: Field::default(),
        capability: Field::default(),
        inputs: Field::parsed(inputs.iter().map(|s| s.to_string()).collect()),
        outputs: Field::parsed(outputs.iter().map(|s| s.to_string()).collect()),
        domain_tags: Field::default(),
        tooling: Field::default(),
        example_tasks: Field::default(),
        entrypoints: Field::default(),
        headings: vec![],
        source_path: format!("{id}/SKILL.md"),
        content_hash: String::new(),
        warnings: Vec::new(),
    }
}

#[test]
fn io_edges_follow_type_overlap_and_threshold() {
    let nodes = vec![
        node("geo/shp", "shp", &["shapefile"], &["geojson"]),
        node("geo/reproject", "reproject", &["geojson"], &["geojson"]),
        node("geo/map", "map", &["geojson", "csv"], &["image"]),
        node("x/plot", "plot", &["csv"], &["image"]),
    ];
    let mut stats = RelateStats::default();
    let no_evidence = RelateOptions {
        min_shared_terms: 0,
        ..RelateOptions::default()
    };
    let edges = io_edges(&nodes, &no_evidence, &mut stats);
    let pairs: Vec<(&str, &str)> = edges
        .iter()
        .map(|e| (e.source.as_str(), e.target.as_str()))
        .collect();
    assert!(pairs.contains(&("geo/shp", "geo/reproject")));
    // map needs geojson and csv; geojson alone carries idf share below 0.6? df(geojson)=3,
    // df(csv)=2: idf 0.847 vs 1.099, share 0.435 < 0.6: no edge.
    assert!(!pairs.iter().any(|p| p.1 == "geo/map"));
    assert!(stats.scored_pairs < stats.all_pairs);
    assert!(edges.iter().all(|e| e.weight >= 0.6));
}

fn described(mut n: SkillNode, description: &str) -> SkillNode {
    n.description = Field::parsed(description.into());
    n
}

#[test]
fn io_edges_need_specific_evidence_beyond_one_generic_type() {
    let nodes = vec![
        described(
            node("m/ffmpeg-trim", "ffmpeg-trim", &[], &["video"]),
            "Trim clips with ffmpeg x264.",
        ),
        described(
            node("m/ffmpeg-concat", "ffmpeg-concat", &["video"], &[]),
            "Join clips with ffmpeg x264.",
        ),
        described(
            node("m/gemini-count", "gemini-count", &["video"], &[]),
            "Count objects in clips with gemini.",
        ),
        described(
            node("n/concat-copy", "concat-copy", &[], &["video"]),
            "Join clips with ffmpeg x264.",
        ),
    ];
    // `video` is named by 4 nodes: generic at specific_type_df 1; terms used by more than
    // 3 nodes (`clips`, `with`) are not specific.
    let opts = RelateOptions {
        specific_type_df: 1,
        min_shared_terms: 2,
        term_max_df: 3,
        ..RelateOptions::default()
    };
    let mut stats = RelateStats::default();
    let edges = io_edges(&nodes, &opts, &mut stats);
    let got: Vec<(&str, &str, &str)> = edges
        .iter()
        .map(|e| (e.source.as_str(), e.target.as_str(), e.evidence.as_str()))
        .collect();
    // trim -> concat share ffmpeg and x264; nothing specific joins the counter; the copy
    // has the consumer's own description.
    assert_eq!(
        got,
        vec![("m/ffmpeg-trim", "m/ffmpeg-concat", "video; ffmpeg, x264")]
    );
    assert_eq!(stats.io_without_evidence, 3);
    // A rare type is evidence on its own; 0 shared terms turns the requirement off.
    let rare = RelateOptions {
        specific_type_df: 4,
        ..opts
    };
    let mut stats = RelateStats::default();
    assert_eq!(io_edges(&nodes, &rare, &mut stats).len(), 3);
    let off = RelateOptions {
        min_shared_terms: 0,
        ..opts
    };
    let mut stats = RelateStats::default();
    assert_eq!(io_edges(&nodes, &off, &mut stats).len(), 4);
    assert_eq!(stats.io_without_evidence, 0);
}

#[test]
fn io_edges_of_one_stage_are_dropped_and_a_chain_with_three_terms_is_kept() {
    let nodes = vec![
        described(
            node("b/bwa-align", "bwa-align", &["fastq"], &["bam"]),
            "Align reads with bwa mem2 mapq germline.",
        ),
        described(
            node("b/bowtie-align", "bowtie-align", &["fastq"], &["bam"]),
            "Align reads with bowtie mapq germline.",
        ),
        described(
            node("b/bam-sort", "bam-sort", &["bam"], &["bam"]),
            "Sort reads by mapq germline coordinate.",
        ),
        described(
            node("b/coverage", "coverage", &["bam"], &["bed"]),
            "Depth over reads mapq germline windows.",
        ),
    ];
    let opts = RelateOptions {
        term_max_df: 4,
        min_shared_terms: 3,
        reject_same_stage: true,
        ..RelateOptions::default()
    };
    let mut stats = RelateStats::default();
    let edges = io_edges(&nodes, &opts, &mut stats);
    let got: Vec<(&str, &str)> = edges
        .iter()
        .map(|e| (e.source.as_str(), e.target.as_str()))
        .collect();
    // The aligners feed coverage (bam; germline, mapq, reads); bam-sort consumes and
    // re-produces bam, so nothing joins it either way (same stage).
    assert_eq!(
        got,
        [
            ("b/bowtie-align", "b/coverage"),
            ("b/bwa-align", "b/coverage")
        ]
    );
    assert!(edges[0].evidence.starts_with("bam; "));
    assert_eq!(stats.io_without_evidence, 3);
}

#[test]
fn mention_hubs_and_deprecated_skills_lose_their_edges_and_specialisations_turn() {
    let mut nodes = vec![
        node("c/hub", "hub", &[], &[]),
        described(node("c/old", "old", &[], &[]), "[DEPRECATED - use new]"),
        node("c/zod", "zod", &[], &[]),
        node("c/react-hook-form-zod", "react-hook-form-zod", &[], &[]),
    ];
    let mut mentions = vec![vec![], vec![], vec!["react-hook-form-zod".into()], vec![]];
    for i in 0..=MAX_MENTION_FAN_IN {
        nodes.push(node(&format!("c/user-{i}"), &format!("user-{i}"), &[], &[]));
        mentions.push(if i == 0 {
            vec!["hub".into(), "old".into()]
        } else {
            vec!["hub".into()]
        });
    }
    let mut stats = RelateStats::default();
    let edges = mention_edges(&nodes, &mentions, &mut stats);
    let got: Vec<(&str, &str, &str)> = edges
        .iter()
        .map(|e| (e.source.as_str(), e.target.as_str(), e.evidence.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![(
            "c/zod",
            "c/react-hook-form-zod",
            "`react-hook-form-zod` skill, which specialises it"
        )]
    );
    assert_eq!(stats.mentions_hub, MAX_MENTION_FAN_IN + 1);
    assert_eq!(stats.mentions_deprecated, 1);
    assert_eq!(stats.mentions_reversed, 1);
    // A body naming more than MAX_MENTION_FAN_OUT skills is a list: no edge.
    let nodes: Vec<SkillNode> = (0..=MAX_MENTION_FAN_OUT + 1)
        .map(|i| node(&format!("c/s{i}"), &format!("s{i}"), &[], &[]))
        .collect();
    let mut mentions = vec![Vec::new(); nodes.len()];
    mentions[0] = (1..nodes.len()).map(|i| format!("s{i}")).collect();
    mentions[1] = vec!["s2".into()];
    let mut stats = RelateStats::default();
    let edges = mention_edges(&nodes, &mentions, &mut stats);
    assert_eq!(edges.len(), 1);
    assert_eq!(
        (edges[0].source.as_str(), edges[0].target.as_str()),
        ("c/s2", "c/s1")
    );
    assert_eq!(stats.mentions_list, MAX_MENTION_FAN_OUT + 1);
}

#[test]
fn ambiguous_mentions_link_nothing_whatever_the_collection_and_common_words_are_skipped() {
    let nodes = vec![
        node("docs/pdf", "pdf", &[], &[]),
        node("sci/pdf", "pdf", &[], &[]),
        node("docs/invoice", "invoice", &[], &[]),
        node("other/thing", "thing", &[], &[]),
    ];
    // docs/invoice names `pdf` (two skills, one in its own collection: still ambiguous),
    // `skill` (a common word) and `thing` (one skill, in another collection).
    let mentions = vec![
        vec![],
        vec![],
        vec!["pdf".into(), "skill".into(), "thing".into()],
        vec!["pdf".into()],
    ];
    let mut stats = RelateStats::default();
    let edges = mention_edges(&nodes, &mentions, &mut stats);
    assert_eq!(edges.len(), 1);
    assert_eq!(
        (edges[0].source.as_str(), edges[0].target.as_str()),
        ("other/thing", "docs/invoice")
    );
    assert_eq!(stats.mentions_common_word, 1);
    assert_eq!(stats.mentions_ambiguous, 2);
}

/// Two skills with one normalized name (`xlsx`, `XLSX`: versions or forks of one skill) are
/// never producer and consumer, and the slot goes to the next producer; a skill of another
/// name with the same types is joined.
#[test]
fn namesakes_are_not_each_others_prerequisite() {
    let nodes = vec![
        node("a/xlsx", "xlsx", &["spreadsheet"], &["spreadsheet"]),
        node("b/xlsx", "XLSX", &["spreadsheet"], &["spreadsheet"]),
        node("c/sheet-export", "sheet-export", &["csv"], &["spreadsheet"]),
    ];
    let no_evidence = RelateOptions {
        min_shared_terms: 0,
        ..RelateOptions::default()
    };
    let mut stats = RelateStats::default();
    let edges = io_edges(&nodes, &no_evidence, &mut stats);
    let mut pairs: Vec<(&str, &str)> = edges
        .iter()
        .map(|e| (e.source.as_str(), e.target.as_str()))
        .collect();
    pairs.sort();
    assert_eq!(
        pairs,
        vec![("c/sheet-export", "a/xlsx"), ("c/sheet-export", "b/xlsx")]
    );
    // a -> b and b -> a, each scored 1.0 and dropped.
    assert_eq!(stats.io_namesakes, 2);
}

/// Names ending in the same word are two skills of one kind: `elevenlabs-tts` and
/// `voice-ai-tts` are not producer and consumer; `audio-extract` and `voice-ai-tts` are.
/// Versions and editions are not a kind (`xlsx-2` ends in `xlsx`, `docx-official` in `docx`),
/// converters (`html-to-pdf`) are of no kind, names of digits alone never match, and words are
/// Unicode (`图片` and `文档` differ).
#[test]
fn skills_of_one_kind_are_not_each_others_prerequisite() {
    assert!(same_kind("elevenlabs-tts", "voice-ai-tts"));
    assert!(same_kind(
        "bio-read-alignment-hisat2-alignment",
        "bwa-alignment"
    ));
    assert!(same_kind("xlsx-2", "xlsx"));
    assert!(same_kind("docx-v2", "docx"));
    assert!(same_kind("图片-ocr", "文档-ocr"));
    assert!(!same_kind("图片", "文档"));
    assert!(!same_kind("docx-official", "xlsx-official"));
    assert!(!same_kind("html-to-pdf", "merge-pdf"));
    assert!(!same_kind("long-read-qc", "long-read-alignment"));
    assert!(!same_kind("2", "2"));
    assert!(!same_kind("", "tts"));
    let nodes = vec![
        node("a/elevenlabs-tts", "elevenlabs-tts", &[], &["audio"]),
        node("b/audio-extract", "audio-extract", &["video"], &["audio"]),
        node("c/voice-ai-tts", "voice-ai-tts", &["audio"], &["audio"]),
    ];
    let no_evidence = RelateOptions {
        min_shared_terms: 0,
        ..RelateOptions::default()
    };
    let mut stats = RelateStats::default();
    let pairs: Vec<(String, String)> = io_edges(&nodes, &no_evidence, &mut stats)
        .into_iter()
        .map(|e| (e.source, e.target))
        .collect();
    assert_eq!(
        pairs,
        vec![("b/audio-extract".to_string(), "c/voice-ai-tts".to_string())]
    );
    assert_eq!(stats.io_same_kind, 1);
}

/// A body naming its own skill does not link to a copy elsewhere, and two skills that name
/// each other ("see also" between siblings) get neither edge; a one-way mention still links.
#[test]
fn self_mentions_and_mentions_both_ways_link_nothing() {
    let nodes = vec![
        node("a/literature-review", "literature-review", &[], &[]),
        node("b/literature-review", "literature-review", &[], &[]),
        node("c/azure-deploy", "azure-deploy", &[], &[]),
        node("c/azure-prepare", "azure-prepare", &[], &[]),
        node("c/gcode-parser", "gcode-parser", &[], &[]),
        node("c/estimator", "estimator", &[], &[]),
        node("c/nextjs", "nextjs", &[], &[]),
        node("c/cloudflare-nextjs", "cloudflare-nextjs", &[], &[]),
    ];
    let mentions = vec![
        vec!["literature-review".into()],
        vec![],
        vec!["azure-prepare".into()],
        vec!["azure-deploy".into()],
        vec![],
        vec!["gcode-parser".into()],
        // A general skill and its specialisation naming each other: one direction, kept.
        vec!["cloudflare-nextjs".into()],
        vec!["nextjs".into()],
    ];
    let mut stats = RelateStats::default();
    let edges = mention_edges(&nodes, &mentions, &mut stats);
    let got: Vec<(&str, &str)> = edges
        .iter()
        .map(|e| (e.source.as_str(), e.target.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("c/gcode-parser", "c/estimator"),
            ("c/nextjs", "c/cloudflare-nextjs"),
            ("c/nextjs", "c/cloudflare-nextjs")
        ]
    );
    assert_eq!(stats.mentions_self, 1);
    assert_eq!(stats.mentions_both_ways, 2);
}
