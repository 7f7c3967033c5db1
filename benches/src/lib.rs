//! Support code of the gos benchmarks (`benches/benches/`, criterion): synthetic graphs for the
//! diffusion benchmarks ([`graphs`]). The synthetic library generator is the [`gos_synth`]
//! crate (behind `gos synth`); it is re-exported here as [`synth`] for the benchmarks.

pub mod graphs;

pub use gos_synth as synth;
