//! The table of knobs ([`KNOBS`]), in `--help` order within each category, written in four
//! files by group and joined into one table at compile time.

use super::{Knob, Value};

mod bundle;
mod experimental;
mod graph;
mod ranking;

/// The text of a [`super::Range::Form`] value.
fn text<'v>(v: Value<'v>) -> &'v str {
    match v {
        Value::Text(t) => t,
        _ => unreachable!("a form range parses text"),
    }
}

/// The groups in table order.
const PARTS: &[&[Knob]] = &[
    graph::KNOBS,
    ranking::KNOBS,
    bundle::KNOBS,
    experimental::KNOBS,
];

/// How many knobs the groups hold together.
const COUNT: usize = {
    let (mut n, mut i) = (0, 0);
    while i < PARTS.len() {
        n += PARTS[i].len();
        i += 1;
    }
    n
};

/// The groups joined, in order.
const fn joined() -> [Knob; COUNT] {
    let mut out = [PARTS[0][0]; COUNT];
    let (mut i, mut k) = (0, 0);
    while i < PARTS.len() {
        let mut j = 0;
        while j < PARTS[i].len() {
            out[k] = PARTS[i][j];
            k += 1;
            j += 1;
        }
        i += 1;
    }
    out
}

/// Storage of [`KNOBS`].
static ALL: [Knob; COUNT] = joined();

/// Every knob of retrieval.
pub static KNOBS: &[Knob] = &ALL;
