//! Support code of the gos benchmarks (`benches/benches/`, criterion): the synthetic library
//! generator ([`synth`], also behind `gos synth`) and synthetic graphs for the diffusion
//! benchmarks ([`graphs`]).

pub mod graphs;
pub mod synth;
