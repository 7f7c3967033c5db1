//! Benchmarks of gos live in `benches/benches/` (criterion). This library crate is empty for
//! now; the synthetic library generator used by the scale benchmarks will live here.
