//! `gos retrieve` flags of query handling (issue 14 item 5; docs/evaluation.md, "Query
//! handling"). Markup stripping and the coverage floor were measured not to help and are
//! registry knobs reached by `--set markup=...` and `--set min_coverage=...`.

use super::finite;
use gos_core::RetrieveOptions;
use gos_core::index::lexical::FieldBoosts;

/// Query handling.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Query")]
pub struct QueryArgs {
    /// Query-term weight of code-like tokens (inline code, file names, identifiers, flags);
    /// 1 = no boost [default: 1.5 with hybrid seeds, 1 with lexical seeds].
    #[arg(long, value_parser = positive_f32)]
    pub code_boost: Option<f32>,
    /// BM25 field boosts, NAME=BOOST,... over name, description, meta, headings, body
    /// (fields not named keep their default: name=3,description=2,meta=1.5,headings=1.5,body=1).
    #[arg(long, value_name = "NAME=BOOST,...", default_value_t = FieldBoosts::default())]
    pub field_boosts: FieldBoosts,
}

impl QueryArgs {
    /// Set these options in `opts`.
    pub fn apply(&self, opts: &mut RetrieveOptions) {
        opts.query.code_boost = self.code_boost;
        opts.query.field_boosts = self.field_boosts;
    }
}

/// A finite float > 0.
fn positive_f32(s: &str) -> Result<f32, String> {
    match finite(s)? {
        v if v > 0.0 => Ok(v as f32),
        v => Err(format!("{v} is not > 0")),
    }
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
            "--code-boost",
            "2",
            "--field-boosts",
            "name=4,body=0.5",
            "--set",
            "markup=strip-code",
            "--set",
            "min_coverage=0.17",
            "q",
        ];
        let Command::Retrieve(r) = Cli::try_parse_from(argv).unwrap().command else {
            panic!("not retrieve")
        };
        let mut opts = gos_core::RetrieveOptions::default();
        r.query_handling.apply(&mut opts);
        gos_core::param::set_all(&mut opts, r.set.iter().map(String::as_str)).unwrap();
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
            ["--field-boosts", "title=2"],
            ["--markup", "strip"],
            ["--coverage", "true"],
        ] {
            let argv = ["gos", "retrieve", "-w", "ws", bad[0], bad[1], "q"];
            assert!(Cli::try_parse_from(argv).is_err(), "{bad:?}");
        }
    }
}
