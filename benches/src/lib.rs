//! Shared helpers for the gos benchmarks.
