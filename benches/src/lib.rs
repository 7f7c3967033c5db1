//! Support code of the gos benchmarks (`benches/benches/`, criterion): synthetic graphs for the
//! diffusion benchmarks ([`graphs`]). The synthetic library generator lives in
//! [`gos_eval::synth`] (behind `gos synth`); it is re-exported here as [`synth`] for the
//! benchmarks.

pub mod graphs;

pub use gos_eval::synth;
