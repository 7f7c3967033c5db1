//! Retrieval parameters set by name ([`Param`]): the values after `@` in an arm name
//! ([`crate::arm`]), the `--set NAME=V` of `gos eval`, and the sweeps of cross-validation
//! ([`crate::cv`]), with their parsing (`NAME=V1,V2,...`) and the grid of a sweep.
//!
//! Both arms and cross-validation read this module, so it depends on neither.

use crate::error::{Error, Result};
use gos_core::RetrieveOptions;
use gos_core::param::Knob;

/// A retrieval parameter a sweep can set: a knob of the registry ([`gos_core::param`]) that is
/// a field of [`RetrieveOptions`]. Sweeps give numbers; switches take 0 and 1, choices the
/// index of a value (`markup`: 0 keep, 1 strip, 2 strip-code).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Param(&'static Knob);

impl Param {
    /// The parameter called `name` (registry name, `-` or `_`, or an old alias).
    ///
    /// # Errors
    /// [`Error::Sweep`] listing the names for an unknown one.
    pub fn named(name: &str) -> Result<Param> {
        gos_core::param::knob(name)
            .map(Param)
            .map_err(|e| Error::Sweep(e.to_string()))
    }

    /// The registry name, e.g. `min_seed_score`.
    pub fn as_str(self) -> &'static str {
        self.0.name
    }

    /// The registry entry.
    pub fn knob(self) -> &'static Knob {
        self.0
    }

    /// Set this parameter of `opts` to `v`, through the registry's setter
    /// ([`gos_core::param::set`]).
    ///
    /// # Errors
    /// [`Error::Sweep`] with the registry's reason: `v` outside the knob's range (naming it),
    /// or a knob that is not a field of [`RetrieveOptions`].
    pub fn apply(self, opts: &mut RetrieveOptions, v: f64) -> Result<()> {
        gos_core::param::set(opts, self.0.name, &v.to_string())
            .map_err(|e| Error::Sweep(e.to_string()))
    }
}

/// One swept parameter and its values, in the order given.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    /// The parameter.
    pub param: Param,
    /// Its values.
    pub values: Vec<f64>,
}

/// Parse `NAME=V1,V2,...` (the names are the registry's, [`gos_core::param::KNOBS`]).
///
/// # Errors
/// [`Error::Sweep`] naming the allowed parameters for an unknown name, or the value that does
/// not parse; an empty value list; a value [`Param::apply`] refuses.
pub fn parse_sweep(spec: &str) -> Result<Sweep> {
    let (name, list) = spec
        .split_once('=')
        .ok_or_else(|| Error::Sweep(format!("sweep `{spec}`: expected NAME=V1,V2,...")))?;
    let param = Param::named(name).map_err(|e| Error::Sweep(format!("sweep `{spec}`: {e}")))?;
    let values = list
        .split(',')
        .filter(|v| !v.trim().is_empty())
        .map(|v| {
            v.trim()
                .parse::<f64>()
                .map_err(|_| Error::Sweep(format!("sweep `{spec}`: `{v}` is not a number")))
        })
        .collect::<Result<Vec<f64>>>()?;
    if values.is_empty() {
        return Err(Error::Sweep(format!("sweep `{spec}`: no values")));
    }
    let mut probe = RetrieveOptions::default();
    for &v in &values {
        param.apply(&mut probe, v)?;
    }
    Ok(Sweep { param, values })
}

/// The grid of `sweeps`: their Cartesian product, the first sweep varying slowest. One empty
/// point (the base options) for no sweep.
pub fn grid(sweeps: &[Sweep]) -> Vec<Vec<(Param, f64)>> {
    sweeps.iter().fold(vec![Vec::new()], |points, sweep| {
        points
            .iter()
            .flat_map(|p| {
                sweep.values.iter().map(move |&v| {
                    let mut q = p.clone();
                    q.push((sweep.param, v));
                    q
                })
            })
            .collect()
    })
}
