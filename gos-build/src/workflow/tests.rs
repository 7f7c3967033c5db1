use super::*;
use gos_core::Field;

fn node(name: &str, description: &str) -> SkillNode {
    SkillNode {
        id: format!("c/{name}"),
        name: name.into(),
        description: Field::parsed(description.into()),
        capability: Field::default(),
        inputs: Field::default(),
        outputs: Field::default(),
        domain_tags: Field::default(),
        tooling: Field::default(),
        example_tasks: Field::default(),
        entrypoints: Field::default(),
        headings: vec![],
        source_path: format!("c/{name}/SKILL.md"),
        content_hash: String::new(),
        warnings: Vec::new(),
    }
}

fn run(
    nodes: &[SkillNode],
    bodies: &[&str],
    copies: &[Vec<usize>],
) -> (Vec<SkillEdge>, WorkflowStats) {
    let mut stats = WorkflowStats::default();
    let edges = workflow_edges(
        nodes,
        bodies,
        copies,
        &WorkflowOptions::default(),
        &mut stats,
    );
    (edges, stats)
}

fn pairs(edges: &[SkillEdge]) -> Vec<(&str, &str)> {
    edges
        .iter()
        .map(|e| (e.source.as_str(), e.target.as_str()))
        .collect()
}

#[test]
fn a_named_first_step_links_in_execution_order_and_quotes_the_sentence() {
    let nodes = vec![
        node("article-writing", "Write long-form articles."),
        node("brand-voice", "Capture a writer's voice profile."),
    ];
    let bodies = [
        "# Article\n\nIf the user wants a specific voice, run `brand-voice` first and reuse its \
         `VOICE PROFILE`. Then draft.\n",
        "",
    ];
    let (edges, stats) = run(&nodes, &bodies, &[]);
    assert_eq!(pairs(&edges), [("c/brand-voice", "c/article-writing")]);
    let e = &edges[0];
    assert_eq!(e.edge_type, EdgeType::Workflow);
    assert_eq!(e.provenance, EdgeProvenance::Sequence);
    assert_eq!(e.weight, 1.0);
    assert_eq!(
        e.evidence,
        "If the user wants a specific voice, run brand-voice first and reuse its VOICE PROFILE."
    );
    assert_eq!((stats.cues, stats.edges), (1, 1));
}

#[test]
fn a_sentence_wrapped_across_lines_is_read_whole() {
    let nodes = vec![
        node("invoice-field-parser", "Parse invoice fields."),
        node("pdf-text-extraction", "Extract text from PDF."),
    ];
    let bodies = [
        "This skill works on text. When the invoices arrive as PDFs, use the\n\
         `pdf-text-extraction` skill first and feed its Markdown output here.\n\nNext paragraph.",
        "",
    ];
    let (edges, _) = run(&nodes, &bodies, &[]);
    assert_eq!(
        pairs(&edges),
        [("c/pdf-text-extraction", "c/invoice-field-parser")]
    );
    assert_eq!(
        edges[0].evidence,
        "When the invoices arrive as PDFs, use the pdf-text-extraction skill first and feed its \
         Markdown output here."
    );
}

#[test]
fn cues_set_the_direction_both_ways() {
    let nodes = vec![
        node("audit-augmentation", "Augment an audit."),
        node("diagramming-code", "Draw diagrams of code."),
        node("quantized-export", "Export a quantized model."),
        node("checkpoint-promotion", "Promote a checkpoint."),
        node("brainstorming", "Brainstorm a design."),
        node(
            "multi-agent-brainstorming",
            "Review a design with several agents.",
        ),
    ];
    let bodies = [
        "- Generating diagrams (use the `diagramming-code` skill after augmenting)",
        "",
        "The last stop after `checkpoint-promotion`: export the weights.",
        "",
        "If the design is high-impact, hand off the finalized design and Decision Log to the \
         `multi-agent-brainstorming` skill before implementation.",
        "",
    ];
    let (edges, _) = run(&nodes, &bodies, &[]);
    assert_eq!(
        pairs(&edges),
        [
            ("c/audit-augmentation", "c/diagramming-code"),
            ("c/checkpoint-promotion", "c/quantized-export"),
            ("c/brainstorming", "c/multi-agent-brainstorming"),
        ]
    );
}

#[test]
fn a_command_word_a_bare_name_and_code_link_nothing() {
    // `search` and `connect` are skills of the library, but here they are subcommands: a bare
    // word in backticks names no skill. `brand-voice` appears only without backticks and
    // without "skill", and inside a code fence.
    // The read sample's false cues: a comparison ("before/after"), a likeness ("modeled
    // after"), a method ("test first"), a kind of skill ("domain skills", "all skills").
    let nodes = vec![
        node("rejseplanen", "Danish public transport."),
        node("search", "Search the web."),
        node("connect", "Connect accounts."),
        node("brand-voice", "Capture a voice."),
        node("scan", "Scan a codebase."),
        node("domain", "Railway domains."),
        node("graph-evolution", "Compare code graphs."),
        node("tdd-guide", "Test-driven development."),
        node("moltbook-format", "A skill format."),
    ];
    let bodies = [
        "Use `search` to find station IDs, then store them. First `connect`, then `volume`.\n\
         Run brand-voice first.\n```\nrun `brand-voice` first\n```\n| `brand-voice` | then |\n\
         - Security scan all skills before composition.\n\
         - Debugging first, then domain skills.\n\
         Run `graph-evolution` or equivalent before/after graph analysis.\n\
         - Test first - Use `tdd-guide` for new features.\n\
         This spec is modeled after the `moltbook-format` skill.",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
    ];
    let (edges, stats) = run(&nodes, &bodies, &[]);
    assert!(edges.is_empty(), "{edges:?}");
    assert_eq!(stats.cues, 0);
}

#[test]
fn a_hub_named_by_too_many_skills_is_capped() {
    let mut nodes = vec![node("brand-voice", "Capture a voice.")];
    let mut bodies = vec![String::new()];
    for i in 0..=WorkflowOptions::default().max_fan_in {
        nodes.push(node(&format!("writer-{i:02}"), "Write posts."));
        bodies.push("Run `brand-voice` first.".into());
    }
    let refs: Vec<&str> = bodies.iter().map(String::as_str).collect();
    let (edges, stats) = run(&nodes, &refs, &[]);
    assert!(edges.is_empty());
    assert_eq!(stats.hub, WorkflowOptions::default().max_fan_in + 1);
    // One fewer naming skill is under the cap: every edge is kept.
    let (edges, stats) = run(&nodes[..nodes.len() - 1], &refs[..refs.len() - 1], &[]);
    assert_eq!(edges.len(), WorkflowOptions::default().max_fan_in);
    assert_eq!(stats.hub, 0);
}

#[test]
fn numbered_steps_chain_the_skills_they_name() {
    let nodes = vec![
        node("invoice-report", "Monthly invoice report."),
        node("pdf-extract", "Extract tables from PDF."),
        node("xlsx-writer", "Write Excel workbooks."),
    ];
    let bodies = [
        "## Steps\n\n1. Pull the tables with the `pdf-extract` skill.\n2. Clean the columns.\n\
         3. Write the workbook with `xlsx-writer`.\n",
        "",
        "",
    ];
    let (edges, stats) = run(&nodes, &bodies, &[]);
    assert_eq!(pairs(&edges), [("c/pdf-extract", "c/xlsx-writer")]);
    assert_eq!(
        edges[0].evidence,
        "step 1: Pull the tables with the pdf-extract skill. / step 3: Write the workbook with \
         xlsx-writer."
    );
    assert_eq!(stats.from_steps, 1);
    // A heading between the two steps ends the run.
    let bodies = [
        "1. Pull the tables with the `pdf-extract` skill.\n## Other\n1. Use `xlsx-writer`.\n",
        "",
        "",
    ];
    let (edges, _) = run(&nodes, &bodies, &[]);
    assert!(edges.is_empty());
}

#[test]
fn ambiguous_names_link_nothing_and_copies_of_one_skill_link_each_copy() {
    let nodes = vec![
        node("crosspost", "Post everywhere."),
        node("brand-voice", "Capture a voice."),
        node("brand-voice", "Capture a voice, too."),
    ];
    // Ids differ by folder: make them distinct skills with one name.
    let mut nodes = nodes;
    nodes[1].id = "a/brand-voice-a".into();
    nodes[2].id = "b/brand-voice-b".into();
    let bodies = ["Run `brand-voice` first.", "", ""];
    let (edges, stats) = run(&nodes, &bodies, &[]);
    assert!(edges.is_empty());
    assert_eq!(stats.ambiguous, 1);
    let (edges, _) = run(&nodes, &bodies, &[vec![1, 2]]);
    assert_eq!(
        pairs(&edges),
        [
            ("a/brand-voice-a", "c/crosspost"),
            ("b/brand-voice-b", "c/crosspost")
        ]
    );
}

#[test]
fn deprecated_lists_and_contradictions_are_dropped() {
    let nodes = vec![
        node("a-one", "First."),
        node("b-two", "[DEPRECATED - use c-three]"),
        node("c-three", "Third."),
        node("d-four", "Fourth."),
    ];
    let bodies = [
        "Run `b-two` first. Run `c-three` first.",
        "",
        "Run `a-one` first.",
        "",
    ];
    let (edges, stats) = run(&nodes, &bodies, &[]);
    assert!(edges.is_empty(), "{edges:?}");
    assert_eq!((stats.deprecated, stats.contradictory), (1, 1));
    // A body sequencing more than max_fan_out skills is a list.
    let mut nodes = vec![node("index", "All of them.")];
    let mut body = String::new();
    for i in 0..=WorkflowOptions::default().max_fan_out {
        nodes.push(node(&format!("tool-{i}"), "A tool."));
        body.push_str(&format!("Run `tool-{i}` first. "));
    }
    let mut bodies = vec![body.as_str()];
    bodies.extend(std::iter::repeat_n("", nodes.len() - 1));
    let (edges, stats) = run(&nodes, &bodies, &[]);
    assert!(edges.is_empty());
    assert_eq!(stats.list, WorkflowOptions::default().max_fan_out + 1);
}

#[test]
fn evidence_is_clipped_around_the_name_without_markup_or_control_characters() {
    let long = format!(
        "{} run the `brand-voice` skill first\u{1b}[31m and then {}.",
        "word ".repeat(40),
        "more ".repeat(40)
    );
    let at = long.find("`brand-voice`").unwrap();
    let e = evidence(&long, at);
    assert!(
        e.chars().count() <= MAX_EVIDENCE_CHARS,
        "{}",
        e.chars().count()
    );
    assert!(e.starts_with('…') && e.ends_with('…'), "{e}");
    assert!(
        e.contains("run the brand-voice skill first[31m and then"),
        "{e}"
    );
    assert!(!e.contains('`') && !e.chars().any(char::is_control));
}

/// A sentence that denies needing the skill it sequences links nothing (a new user's "You
/// don't need the `csv-cleanup` skill first here"); the same cue without the denial links.
#[test]
fn a_sentence_denying_the_need_links_nothing() {
    let nodes = vec![
        node("csv-cleanup", "Cleans CSV files."),
        node("invoice-parser", "Parses invoices."),
        node("sales-report", "Builds a sales report."),
    ];
    let bodies = [
        "",
        "You don't need the `csv-cleanup` skill first here; the ledger is clean.",
        "Run the `csv-cleanup` skill first.",
    ];
    let (edges, stats) = run(&nodes, &bodies, &[]);
    assert_eq!(pairs(&edges), vec![("c/csv-cleanup", "c/sales-report")]);
    assert_eq!(stats.denied, 1);
}
