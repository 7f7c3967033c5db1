//! `gos retrieve` flags of query handling and the coverage floor (issue 14 items 5 and 6;
//! docs/evaluation.md, "Query handling" and "Relevance floors").

use super::{finite, unit_interval};
use gos_core::RetrieveOptions;
use gos_core::index::lexical::FieldBoosts;
use gos_core::query::{Markup, QueryParams};
use gos_core::relevance::DEFAULT_MIN_COVERAGE;

/// Query handling and the coverage floor.
#[derive(Debug, Clone, clap::Args)]
pub struct QueryArgs {
    /// Markdown in the task text before BM25 analysis: keep it, strip it (syntax, link
    /// targets, bare URLs, HTML), or strip code blocks too.
    #[arg(long, value_enum, default_value_t = Markup::default())]
    pub markup: Markup,
    /// Query-term weight of code-like tokens (inline code, file names, identifiers, flags);
    /// 1 = no boost [default: 1.5 with hybrid seeds, 1 with lexical seeds].
    #[arg(long, value_parser = positive_f32)]
    pub code_boost: Option<f32>,
    /// BM25 field boosts, NAME=BOOST,... over name, description, meta, headings, body
    /// (fields not named keep their default: name=3,description=2,meta=1.5,headings=1.5,body=1).
    #[arg(long, value_name = "NAME=BOOST,...", default_value = "")]
    pub field_boosts: FieldBoosts,
    /// Coverage floor (lexical seeds): NO_SKILL_HIT when no top-5 BM25 hit's name and
    /// description overlap the query this much (idf-weighted shared terms over the smaller
    /// side's terms); 0 = off.
    #[arg(long, default_value_t = DEFAULT_MIN_COVERAGE, value_parser = unit_interval_f32)]
    pub min_coverage: f32,
}

impl QueryArgs {
    /// Set these options in `opts`.
    pub fn apply(&self, opts: &mut RetrieveOptions) {
        opts.query = QueryParams {
            markup: self.markup,
            code_boost: self.code_boost,
            field_boosts: self.field_boosts,
        };
        opts.min_coverage = self.min_coverage;
    }
}

/// A finite float > 0.
fn positive_f32(s: &str) -> Result<f32, String> {
    match finite(s)? {
        v if v > 0.0 => Ok(v as f32),
        v => Err(format!("{v} is not > 0")),
    }
}

/// A float in [0, 1], as f32.
fn unit_interval_f32(s: &str) -> Result<f32, String> {
    unit_interval(s).map(|v| v as f32)
}

#[cfg(test)]
mod tests {
    use crate::{Cli, Command};
    use clap::Parser;

    #[test]
    fn query_flags_parse_into_options() {
        let argv = [
            "gos",
            "retrieve",
            "-w",
            "ws",
            "--markup",
            "strip-code",
            "--code-boost",
            "2",
            "--field-boosts",
            "name=4,body=0.5",
            "--min-coverage",
            "0.17",
            "q",
        ];
        let Command::Retrieve(r) = Cli::try_parse_from(argv).unwrap().command else {
            panic!("not retrieve")
        };
        let mut opts = gos_core::RetrieveOptions::default();
        r.query_handling.apply(&mut opts);
        assert_eq!(opts.query.markup, gos_core::query::Markup::StripCode);
        assert_eq!(opts.query.code_boost, Some(2.0));
        assert_eq!(
            opts.query.field_boosts.as_array(),
            [4.0, 2.0, 1.5, 1.5, 0.5]
        );
        assert_eq!(opts.min_coverage, 0.17);
        // Without the flags: today's options.
        let Command::Retrieve(r) = Cli::try_parse_from(["gos", "retrieve", "-w", "ws", "q"])
            .unwrap()
            .command
        else {
            panic!("not retrieve")
        };
        let mut plain = gos_core::RetrieveOptions::default();
        r.query_handling.apply(&mut plain);
        assert_eq!(plain, gos_core::RetrieveOptions::default());
        for bad in [
            ["--code-boost", "0"],
            ["--min-coverage", "1.5"],
            ["--field-boosts", "title=2"],
            ["--markup", "html"],
        ] {
            let argv = ["gos", "retrieve", "-w", "ws", bad[0], bad[1], "q"];
            assert!(Cli::try_parse_from(argv).is_err(), "{bad:?}");
        }
    }
}
