//! Parsing tests of the command-line arguments.

use super::*;
use clap::CommandFactory;

#[test]
fn the_command_line_is_consistent() {
    Cli::command().debug_assert();
}

#[test]
fn floats_reject_nan_infinity_and_out_of_range() {
    assert!(finite("NaN").is_err());
    assert!(finite("inf").is_err());
    assert_eq!(finite("-0.5"), Ok(-0.5));
    assert!(unit_interval("1.5").is_err());
    assert!(open_unit_interval("0").is_err());
    assert_eq!(open_unit_interval("1"), Ok(1.0));
    assert!(at_least_one("0").is_err());
}

/// Every option whose value is an `f32` or `f64`, in every subcommand, refuses NaN and
/// infinities (found through the value parsers' types, so a new float option is checked
/// without being listed here).
#[test]
fn every_float_option_refuses_nan_and_infinity() {
    use std::any::TypeId;
    let cmd = Cli::command();
    let mut checked = Vec::new();
    for sub in cmd.get_subcommands() {
        for arg in sub.get_arguments() {
            let parser = arg.get_value_parser();
            let id = parser.type_id();
            if id != TypeId::of::<f64>() && id != TypeId::of::<f32>() {
                continue;
            }
            let long = arg.get_long().expect("float options are --long options");
            // The option alone in a command of its own, with its own value parser.
            let alone = clap::Command::new("t").arg(arg.clone().required(false));
            let ok = alone
                .clone()
                .try_get_matches_from(["t", &format!("--{long}=0.5")]);
            assert!(ok.is_ok(), "{} --{long} refused 0.5", sub.get_name());
            for bad in ["NaN", "nan", "inf", "-inf", "infinity", "1e999"] {
                let parsed = alone
                    .clone()
                    .try_get_matches_from(["t", &format!("--{long}={bad}")]);
                assert!(
                    parsed.is_err(),
                    "{} --{long} accepted {bad}",
                    sub.get_name()
                );
            }
            checked.push(format!(
                "{} --{}",
                sub.get_name(),
                arg.get_long().unwrap_or("?")
            ));
        }
    }
    // retrieve: min-score, min-dense-score, dense-weight, ce-weight, ce-reserved-share,
    // llm-timeout-s; build: dependency-threshold, llm-timeout-s, llm-min-confidence; eval
    // shares some of them.
    assert!(checked.len() >= 9, "{checked:?}");
    assert!(
        checked.contains(&"retrieve --min-seed-score".to_string()),
        "{checked:?}"
    );
    // Floats inside structured values.
    for bad in ["rrf:inf", "rrf:NaN", "weighted:NaN", "weighted:inf"] {
        assert!(fusion(bad).is_err(), "--fusion accepted {bad}");
    }
    assert!(fusion("rrf:30").is_ok() && fusion("weighted:0.5").is_ok());
}

/// Negative values of the options where they mean something are read as values, not as
/// unknown flags, with or without `=`.
#[test]
fn negative_numbers_are_accepted_where_meaningful() {
    for (flag, value) in [
        ("--min-score", "-1"),
        ("--min-seed-score", "-1"),
        ("--min-dense-score", "-0.5"),
        ("--dense-weight", "-0.25"),
        ("--bundle-min-cosine", "-1"),
    ] {
        for argv in [
            vec!["gos", "retrieve", "-w", "ws", flag, value, "a query"],
            vec!["gos", "retrieve", "-w", "ws", "a query", flag, value],
        ] {
            let cli = Cli::try_parse_from(&argv).unwrap_or_else(|e| panic!("{argv:?}: {e}"));
            let Command::Retrieve(r) = cli.command else {
                panic!("not retrieve")
            };
            let got = match flag {
                "--min-score" | "--min-seed-score" => r.min_seed_score as f64,
                "--min-dense-score" => match r.min_dense_score {
                    DenseFloor::Cosine(c) => c as f64,
                    DenseFloor::Auto => f64::NAN,
                },
                "--bundle-min-cosine" => r.bundle_min_cosine as f64,
                _ => r.dense.dense_weight,
            };
            assert_eq!(got, value.parse::<f64>().unwrap(), "{argv:?}");
            assert_eq!(r.query, "a query");
        }
    }
}

#[test]
fn help_lists_the_values_of_option_enums() {
    let mut cmd = Cli::command();
    let retrieve = cmd.find_subcommand_mut("retrieve").unwrap();
    let help = retrieve.render_long_help().to_string();
    for value in [
        "one-hop",
        "no-graph",
        "push",
        "exact",
        "hybrid",
        "cross-encoder",
    ] {
        assert!(help.contains(value), "--help lacks {value}");
    }
}

/// `gos retrieve` flags that are not retrieval knobs: input and output, the LLM rewrite, the
/// pipeline choice and `--set` itself.
const NOT_KNOBS: [&str; 12] = [
    "workspace",
    "json",
    "rewrite",
    "llm-base-url",
    "llm-model",
    "llm-cache",
    "llm-timeout-secs",
    "llm-retries",
    "pipeline",
    "stage-model",
    "set",
    "help",
];

/// Stable knobs without a `gos retrieve` flag: tuning weights and sizes chosen by
/// cross-validation, reached by `--set` and eval sweeps.
const SET_ONLY: [&str; 26] = [
    "restart_prob",
    "push_epsilon",
    "edge_semantic_lexical",
    "substochastic",
    "cut_without_semantic",
    "collapse_alternatives",
    "keep_prerequisites",
    "min_skill_cosine",
    "edge_io",
    "edge_mention",
    "edge_declared",
    "edge_workflow",
    "reverse_dependency",
    "reverse_workflow",
    "edge_semantic",
    "min_relative_score",
    "seed_k",
    "pool_k",
    "graph_weight",
    "lexical_weight",
    "name_weight",
    "name_boost",
    "description_boost",
    "meta_boost",
    "headings_boost",
    "body_boost",
];

/// The registry and `gos retrieve`'s flags agree: every flag is a knob (or listed as not one),
/// every stable knob has a flag (or is listed as `--set` only), no experimental knob has one,
/// each flag sits under its knob's category heading, and the defaults are equal.
#[test]
fn retrieve_flags_agree_with_the_parameter_registry() {
    use gos_core::param::{Access, KNOBS, Range, Status, knob};
    let cmd = Cli::command();
    let retrieve = cmd.find_subcommand("retrieve").unwrap();
    let mut flagged = Vec::new();
    for arg in retrieve.get_arguments() {
        let Some(long) = arg.get_long() else {
            continue;
        };
        if NOT_KNOBS.contains(&long) {
            continue;
        }
        let k = knob(long).unwrap_or_else(|e| panic!("--{long} is not a registry knob: {e}"));
        assert_eq!(k.flag(), long, "--{long} is an alias of {}", k.name);
        assert_eq!(k.status, Status::Stable, "--{long} is experimental");
        assert_eq!(
            arg.get_help_heading(),
            Some(k.category.heading()),
            "--{long}'s heading"
        );
        let default: Vec<String> = arg
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        let expected = k.default_value();
        match (default.as_slice(), k.range) {
            ([d], _) => assert_eq!(d, &expected, "--{long}'s default"),
            ([], Range::Switch) => assert_eq!(expected, "false", "--{long}"),
            ([], _) => assert!(
                expected == "auto" || matches!(k.access, Access::Loader { .. }),
                "--{long} has no default, the registry says {expected}"
            ),
            _ => panic!("--{long} has several defaults"),
        }
        // The flag refuses what the registry refuses at the lower bound.
        let probe = match k.range {
            Range::Whole { min } if min > 0 => Some((min - 1).to_string()),
            Range::Real { min, open_min, .. } if min.is_finite() => {
                Some(if open_min { min } else { min - 1.0 }.to_string())
            }
            _ => None,
        };
        if let Some(bad) = probe {
            let argv = [
                "gos",
                "retrieve",
                "-w",
                "ws",
                &format!("--{long}={bad}"),
                "q",
            ];
            assert!(k.range.parse(&bad).is_err());
            assert!(
                Cli::try_parse_from(argv).is_err(),
                "--{long} accepted {bad}"
            );
        }
        flagged.push(k.name);
    }
    for k in KNOBS {
        let has_flag = flagged.contains(&k.name);
        match k.status {
            Status::Experimental => assert!(!has_flag, "{} has a flag", k.name),
            Status::Stable => assert!(
                has_flag || SET_ONLY.contains(&k.name),
                "stable knob {} has no flag",
                k.name
            ),
        }
    }
    // Old names still parse, hidden.
    for old in [
        "--min-score=0.3",
        "--ce-weight=0.4",
        "--ce-reserved-share=0.1",
        "--llm-timeout-s=5",
    ] {
        let argv = ["gos", "retrieve", "-w", "ws", old, "q"];
        assert!(Cli::try_parse_from(argv).is_ok(), "{old}");
    }
    let help = Cli::command()
        .find_subcommand_mut("retrieve")
        .unwrap()
        .render_help()
        .to_string();
    for gone in [
        "--min-score",
        "--ce-weight",
        "--coverage",
        "--prereq-slots",
        "--markup",
    ] {
        assert!(!help.contains(&format!("{gone} ")), "--help shows {gone}");
    }
}

/// Every name `gos eval --sweep` takes is a registry name, and `--set` reaches every knob of
/// the retrieval options.
#[test]
fn sweep_and_set_names_are_registry_names() {
    for k in gos_core::param::KNOBS {
        let value = k.default_value();
        if let gos_core::param::Access::Options { .. } = k.access {
            let mut o = gos_core::RetrieveOptions::default();
            gos_core::param::set(&mut o, k.name, &value).unwrap();
            if value.parse::<f64>().is_ok() {
                let s = gos_eval::cv::parse_sweep(&format!("{}={value}", k.name)).unwrap();
                assert_eq!(s.param.as_str(), k.name);
            }
        }
    }
    assert!(gos_eval::cv::parse_sweep("alpha=1").is_err());
}

/// `gos retrieve --help` reads the knob flags' text from the registry: its doc, its numeric
/// range and its heading.
#[test]
fn retrieve_help_reads_the_registry() {
    use gos_core::param::knob;
    let mut cmd = super::command();
    let help = cmd
        .find_subcommand_mut("retrieve")
        .unwrap()
        .render_long_help()
        .to_string();
    let top_n = knob("top_n").unwrap();
    assert!(
        help.contains(&format!(
            "{} (allowed: a whole number >= 1)",
            top_n.doc.trim_end_matches('.')
        )) || help.contains(&format!("{} (allowed: a whole number >= 1)", top_n.doc)),
        "{help}"
    );
    let retrieve = cmd.find_subcommand("retrieve").unwrap();
    let arg = retrieve
        .get_arguments()
        .find(|a| a.get_long() == Some("min-seed-score"))
        .unwrap();
    let k = knob("min_seed_score").unwrap();
    assert_eq!(arg.get_help_heading(), Some(k.category.heading()));
    assert!(
        arg.get_help()
            .unwrap()
            .to_string()
            .starts_with(k.doc.trim_end_matches('.'))
    );
}
