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
        checked.contains(&"retrieve --min-score".to_string()),
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
        ("--min-dense-score", "-0.5"),
        ("--dense-weight", "-0.25"),
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
                "--min-score" => r.min_score as f64,
                "--min-dense-score" => match r.min_dense_score {
                    DenseFloor::Cosine(c) => c as f64,
                    DenseFloor::Auto => f64::NAN,
                },
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
