//! The parameter registry: every retrieval knob once, with its name, doc, unit, allowed values,
//! default, category and status, and a typed way to set it from a string and read it back.
//!
//! A knob's [`Knob::name`] is the one name used everywhere: `gos retrieve --NAME` (with `-` for
//! `_`), `gos retrieve --set NAME=VALUE`, `gos eval --set NAME=VALUE`, `--sweep NAME=a,b`, the
//! `@NAME=VALUE` of an eval arm, the keys of a TOML pipeline's gos stage and the fields of an
//! HTTP / MCP request. [`set`] and [`get`] accept the name with `-` or `_`, and the old names a
//! knob lists in [`Knob::aliases`].
//!
//! Most knobs live on [`RetrieveOptions`]; the cross-encoder stage's on
//! [`crate::rerank::StageParams`] ([`set_stage`]); a few (the models and the reranker choice)
//! select what the command line loads and have no setter here ([`Access::Loader`]).
//!
//! The default of a settable knob is read from `RetrieveOptions::default()` (or
//! `StageParams::default()`) through its getter, so it is stated once, where the struct is.
//!
//! Status [`Status::Experimental`] marks options every cross-validation fold turned off
//! (docs/graph-quality.md, docs/evaluation.md): they are not `gos retrieve` flags, only
//! `--set NAME=VALUE` and eval sweeps reach them.

mod knobs;

use crate::RetrieveOptions;
use crate::rerank::StageParams;

pub use knobs::KNOBS;

/// Where a knob belongs, ripgrep-style; also the `--help` heading of its flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// First-stage seeds (lexical, dense, hybrid).
    Seeds,
    /// Graph operation and diffusion.
    Graph,
    /// Final-score mixing and the cross-encoder stage.
    Rerank,
    /// How the task text becomes the BM25 query.
    Query,
    /// Relevance floors (NO_SKILL_HIT).
    Relevance,
    /// The bundle's size, budgets and hydration.
    Bundle,
    /// Model directories and the device they run on.
    Models,
    /// Options measured not to help; reachable only by `--set` and eval sweeps.
    Experimental,
}

impl Category {
    /// The `--help` heading of the category.
    pub fn heading(self) -> &'static str {
        match self {
            Category::Seeds => "Seeds",
            Category::Graph => "Graph",
            Category::Rerank => "Rerank",
            Category::Query => "Query",
            Category::Relevance => "Relevance",
            Category::Bundle => "Bundle",
            Category::Models => "Models",
            Category::Experimental => "Experimental",
        }
    }
}

/// Whether a knob is a supported option or an experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// A `gos retrieve` flag, kept across versions.
    Stable,
    /// Off the main path: measured not to help (every fold turned it off); may change or go.
    Experimental,
}

/// What a knob's number counts or measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Skills, seeds, slots or candidates.
    Count,
    /// Characters of text.
    Chars,
    /// A weight of a score mix, or a BM25 boost (dimensionless).
    Weight,
    /// A probability or a share, in [0, 1].
    Share,
    /// A score threshold in the score's own unit (stated in the doc).
    Score,
    /// On or off.
    Switch,
    /// One of named values.
    Choice,
    /// A structured value (its form in [`Range::Form`]).
    Form,
    /// A directory.
    Path,
}

/// The values a knob accepts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Range {
    /// A whole number of at least `min`.
    Whole {
        /// Least value.
        min: usize,
    },
    /// A finite real number between `min` and `max` (either may be infinite, meaning no bound);
    /// `open_min` / `open_max` exclude the bound itself. With `auto`, the word `auto` is also
    /// accepted (the default that depends on the workspace or the seeds).
    Real {
        /// Lower bound.
        min: f64,
        /// Upper bound.
        max: f64,
        /// Whether `min` itself is refused.
        open_min: bool,
        /// Whether `max` itself is refused.
        open_max: bool,
        /// Whether `auto` is accepted.
        auto: bool,
    },
    /// `true` / `false` (also `1` / `0`, `on` / `off`).
    Switch,
    /// One of these names; a value's index in the list also works (eval sweeps give numbers).
    Choice(&'static [&'static str]),
    /// A structured value in the form described, checked by the knob's own parser.
    Form(&'static str),
    /// A directory path.
    Path,
}

impl Range {
    /// Any finite real.
    const ANY: Range = Range::real(f64::NEG_INFINITY, f64::INFINITY);

    /// A real number in the closed interval `[min, max]` (either bound may be infinite),
    /// without `auto`: the range of most weights and floors.
    pub const fn real(min: f64, max: f64) -> Range {
        Range::Real {
            min,
            max,
            open_min: false,
            open_max: false,
            auto: false,
        }
    }

    /// The allowed values in words, for errors and docs: `a whole number >= 1`, `a number in
    /// (0, 1]`, `one of reverse, forward`, ...
    pub fn describe(&self) -> String {
        match *self {
            Range::Whole { min } => format!("a whole number >= {min}"),
            Range::Real {
                min,
                max,
                open_min,
                open_max,
                auto,
            } => {
                let number = match (min.is_finite(), max.is_finite()) {
                    (false, false) => "a finite number".to_string(),
                    (true, false) => {
                        format!("a number {} {min}", if open_min { ">" } else { ">=" })
                    }
                    (false, true) => {
                        format!("a number {} {max}", if open_max { "<" } else { "<=" })
                    }
                    (true, true) => format!(
                        "a number in {}{min}, {max}{}",
                        if open_min { "(" } else { "[" },
                        if open_max { ")" } else { "]" }
                    ),
                };
                if auto {
                    format!("`auto` or {number}")
                } else {
                    number
                }
            }
            Range::Switch => "true or false (1 or 0)".to_string(),
            Range::Choice(names) => format!("one of {}", names.join(", ")),
            Range::Form(form) => form.to_string(),
            Range::Path => "a directory".to_string(),
        }
    }

    /// Parse `value` into a [`Value`] this range allows.
    ///
    /// # Errors
    /// A sentence naming the value and [`Range::describe`].
    pub fn parse<'v>(&self, value: &'v str) -> std::result::Result<Value<'v>, String> {
        let v = value.trim();
        let refuse = || format!("`{v}` is not {}", self.describe());
        match *self {
            Range::Whole { min } => {
                // Eval sweeps write whole numbers as reals (`4`, sometimes `4.0`).
                let n = v
                    .parse::<usize>()
                    .ok()
                    .or_else(|| {
                        v.parse::<f64>()
                            .ok()
                            .filter(|f| f.is_finite() && *f >= 0.0 && f.fract() == 0.0)
                            .map(|f| f as usize)
                    })
                    .ok_or_else(refuse)?;
                if n < min {
                    return Err(refuse());
                }
                Ok(Value::Whole(n))
            }
            Range::Real {
                min,
                max,
                open_min,
                open_max,
                auto,
            } => {
                if auto && v.eq_ignore_ascii_case("auto") {
                    return Ok(Value::Auto);
                }
                let f = v.parse::<f64>().map_err(|_| refuse())?;
                let low = if open_min { f > min } else { f >= min };
                let high = if open_max { f < max } else { f <= max };
                if !f.is_finite() || !low || !high {
                    return Err(refuse());
                }
                Ok(Value::Real(f))
            }
            Range::Switch => match v.to_ascii_lowercase().as_str() {
                "true" | "1" | "on" | "yes" => Ok(Value::Switch(true)),
                "false" | "0" | "off" | "no" => Ok(Value::Switch(false)),
                _ => Err(refuse()),
            },
            Range::Choice(names) => names
                .iter()
                .position(|n| *n == v)
                .or_else(|| v.parse::<usize>().ok().filter(|&i| i < names.len()))
                .or_else(|| {
                    v.parse::<f64>()
                        .ok()
                        .filter(|f| f.fract() == 0.0 && *f >= 0.0 && (*f as usize) < names.len())
                        .map(|f| f as usize)
                })
                .map(|i| Value::Choice(names[i]))
                .ok_or_else(refuse),
            Range::Form(_) | Range::Path => {
                if v.is_empty() {
                    Err(refuse())
                } else {
                    Ok(Value::Text(v))
                }
            }
        }
    }
}

/// A value [`Range::parse`] accepted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'v> {
    /// A whole number.
    Whole(usize),
    /// A finite real.
    Real(f64),
    /// `auto`.
    Auto,
    /// A switch.
    Switch(bool),
    /// One of the names of a [`Range::Choice`].
    Choice(&'static str),
    /// The text of a [`Range::Form`] or [`Range::Path`].
    Text(&'v str),
}

impl Value<'_> {
    fn whole(self) -> usize {
        match self {
            Value::Whole(n) => n,
            _ => unreachable!("the range parses whole numbers"),
        }
    }
    fn real(self) -> f64 {
        match self {
            Value::Real(f) => f,
            Value::Whole(n) => n as f64,
            _ => unreachable!("the range parses reals"),
        }
    }
    fn switch(self) -> bool {
        match self {
            Value::Switch(b) => b,
            _ => unreachable!("the range parses switches"),
        }
    }
    fn text(self) -> &'static str {
        match self {
            Value::Choice(s) => s,
            _ => unreachable!("the range parses choices"),
        }
    }
}

type SetFn<T> = fn(&mut T, Value<'_>) -> std::result::Result<(), String>;
type GetFn<T> = fn(&T) -> String;

/// Which struct a knob sets.
#[derive(Clone, Copy)]
pub enum Access {
    /// A field of [`RetrieveOptions`].
    Options {
        /// Write a parsed value.
        set: SetFn<RetrieveOptions>,
        /// The value as text.
        get: GetFn<RetrieveOptions>,
    },
    /// A field of the cross-encoder stage's [`StageParams`].
    Stage {
        /// Write a parsed value.
        set: SetFn<StageParams>,
        /// The value as text.
        get: GetFn<StageParams>,
    },
    /// Chosen by the command that loads the models (`gos retrieve`, `gos eval`, the servers);
    /// `default` is its default in words.
    Loader {
        /// The default, e.g. `cpu`.
        default: &'static str,
    },
}

impl std::fmt::Debug for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Access::Options { .. } => "Options",
            Access::Stage { .. } => "Stage",
            Access::Loader { .. } => "Loader",
        })
    }
}

/// One retrieval knob.
#[derive(Debug, Clone, Copy)]
pub struct Knob {
    /// The stable name, snake_case (`min_seed_score`); the flag is `--min-seed-score`.
    pub name: &'static str,
    /// Older names still accepted (hidden flag aliases, old sweep names).
    pub aliases: &'static [&'static str],
    /// What it does, one or two sentences.
    pub doc: &'static str,
    /// What its number measures.
    pub unit: Unit,
    /// Allowed values.
    pub range: Range,
    /// Where it belongs (the `--help` heading).
    pub category: Category,
    /// Stable or experimental.
    pub status: Status,
    /// Which struct it sets.
    pub access: Access,
}

impl PartialEq for Knob {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Knob {
    /// The command-line flag, `--` and the name with `-` for `_` (`min-seed-score`, without
    /// the dashes).
    pub fn flag(&self) -> String {
        self.name.replace('_', "-")
    }

    /// Whether `name` (with `-` or `_`) is this knob's name or one of its aliases.
    pub fn answers_to(&self, name: &str) -> bool {
        let n = name.trim().replace('-', "_");
        self.name == n || self.aliases.iter().any(|a| a.replace('-', "_") == n)
    }

    /// The default value as text (what [`get`] returns on default options).
    pub fn default_value(&self) -> String {
        match self.access {
            Access::Options { get, .. } => get(&RetrieveOptions::default()),
            Access::Stage { get, .. } => get(&StageParams::default()),
            Access::Loader { default } => default.to_string(),
        }
    }
}

/// A knob could not be set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    /// No knob has this name.
    #[error("unknown parameter `{name}` (one of {known})")]
    Unknown {
        /// The name given.
        name: String,
        /// The names it could have been, comma-separated.
        known: String,
    },
    /// The value is outside the knob's range.
    #[error("{name}: {reason}")]
    Value {
        /// The knob.
        name: &'static str,
        /// Why, with the allowed values.
        reason: String,
    },
    /// The knob is not a field of the struct given (e.g. a cross-encoder knob on
    /// `RetrieveOptions`).
    #[error("{name} is not set here: {why}")]
    Elsewhere {
        /// The knob.
        name: &'static str,
        /// Where it is set.
        why: &'static str,
    },
}

/// The knob called `name` (`-` or `_`, aliases included).
///
/// # Errors
/// [`ParamError::Unknown`] listing every knob's name.
pub fn knob(name: &str) -> std::result::Result<&'static Knob, ParamError> {
    KNOBS
        .iter()
        .find(|k| k.answers_to(name))
        .ok_or_else(|| ParamError::Unknown {
            name: name.trim().to_string(),
            known: KNOBS.iter().map(|k| k.name).collect::<Vec<_>>().join(", "),
        })
}

/// Set knob `name` of `opts` to `value` (text, as a flag or a TOML value gives it).
///
/// # Errors
/// [`ParamError::Unknown`] for a name no knob answers to; [`ParamError::Value`] naming the
/// allowed values or range; [`ParamError::Elsewhere`] for a knob of the cross-encoder stage or
/// of the model loader.
pub fn set(
    opts: &mut RetrieveOptions,
    name: &str,
    value: &str,
) -> std::result::Result<(), ParamError> {
    let k = knob(name)?;
    match k.access {
        Access::Options { set, .. } => apply(k, set, opts, value),
        Access::Stage { .. } => Err(ParamError::Elsewhere {
            name: k.name,
            why: "it is a cross-encoder stage parameter (StageParams)",
        }),
        Access::Loader { .. } => Err(ParamError::Elsewhere {
            name: k.name,
            why: "it chooses a model or device, given by its own flag",
        }),
    }
}

/// Set knob `name` of the cross-encoder stage's `params` to `value`.
///
/// # Errors
/// As [`set`]; [`ParamError::Elsewhere`] for a knob that is not the stage's.
pub fn set_stage(
    params: &mut StageParams,
    name: &str,
    value: &str,
) -> std::result::Result<(), ParamError> {
    let k = knob(name)?;
    match k.access {
        Access::Stage { set, .. } => apply(k, set, params, value),
        _ => Err(ParamError::Elsewhere {
            name: k.name,
            why: "it is not a cross-encoder stage parameter",
        }),
    }
}

fn apply<T>(
    k: &'static Knob,
    set: SetFn<T>,
    target: &mut T,
    value: &str,
) -> std::result::Result<(), ParamError> {
    let bad = |reason| ParamError::Value {
        name: k.name,
        reason,
    };
    let v = k.range.parse(value).map_err(bad)?;
    set(target, v).map_err(bad)
}

/// The value of knob `name` in `opts`, as text [`set`] accepts; `None` for an unknown name or a
/// knob that is not a field of [`RetrieveOptions`].
pub fn get(opts: &RetrieveOptions, name: &str) -> Option<String> {
    match knob(name).ok()?.access {
        Access::Options { get, .. } => Some(get(opts)),
        _ => None,
    }
}

/// The value of knob `name` in the cross-encoder stage's `params`; `None` when it is not one
/// of the stage's knobs.
pub fn get_stage(params: &StageParams, name: &str) -> Option<String> {
    match knob(name).ok()?.access {
        Access::Stage { get, .. } => Some(get(params)),
        _ => None,
    }
}

/// Set `NAME=VALUE` pairs in order (the `--set` of `gos retrieve` and `gos eval`).
///
/// # Errors
/// An item without `=`, or what [`set`] refuses.
pub fn set_all<'a>(
    opts: &mut RetrieveOptions,
    items: impl IntoIterator<Item = &'a str>,
) -> std::result::Result<(), ParamError> {
    for item in items {
        let (name, value) = item.split_once('=').ok_or_else(|| ParamError::Value {
            name: "set",
            reason: format!("`{item}` is not NAME=VALUE (e.g. prereq_slots=1)"),
        })?;
        set(opts, name, value)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
