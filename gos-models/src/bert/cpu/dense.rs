//! The linear layers of the CPU BERT: a weight in the layout this CPU's kernel reads (gemm's
//! row-major transpose, AVX2 panels or int8 panels) and the product that runs one block of rows,
//! or one task's own output columns, with its fused bias and activation.

use super::super::int8::{QuantizedPanels, QuantizedRows, matmul_quantized};
use super::super::kernels::{self, Activation, matmul_ptr};
use super::super::panels::{self, NR, Panels, matmul_panels};
use candle_core::{Result, Tensor};
use rayon::prelude::*;
use std::ops::Range;

/// A weight matrix in the layout its kernel reads.
pub(super) enum Weights {
    /// `(inputs, outputs)` row-major, for gemm: it reads that layout with unit strides
    /// (PyTorch's `(outputs, inputs)` made it gather the weight element by element on every
    /// call, ~30% of the stage's time).
    Transposed(Vec<f32>),
    /// Packed once into the panels of [`super::super::panels`] (AVX2 without AVX-512).
    Panels(Panels),
    /// Quantized to int8 per output channel ([`super::super::int8`]; the opt-in int8 query encoder).
    Int8(QuantizedPanels),
}

/// A linear layer: `y = x · Wᵀ + b`, the weight in its kernel's layout
/// ([`panels::panels_preferred`] decides at load).
pub(crate) struct Dense {
    weights: Weights,
    /// Bias, `outputs` long.
    pub(super) bias: Vec<f32>,
    inputs: usize,
    /// Output width.
    pub(super) outputs: usize,
}

/// What a product task does to its own columns of every row once they are complete.
#[derive(Clone, Copy)]
pub(super) enum Epilogue {
    /// Nothing (the caller's pass follows).
    None,
    /// Add the bias.
    Bias,
    /// Add the bias, then the activation.
    BiasActivation(Activation),
}

/// A pointer into a product's destination shared by the tasks that write disjoint columns of
/// it.
#[derive(Clone, Copy)]
pub(super) struct Dest(pub(super) *mut f32);
// SAFETY: tasks given a `Dest` write disjoint elements (their own columns, or their own
// (pair, head) block); the buffer outlives the parallel region that uses it.
unsafe impl Send for Dest {}
// SAFETY: as above.
unsafe impl Sync for Dest {}

impl Dense {
    /// From a `(outputs, inputs)` weight and an `outputs` bias, in the layout this CPU's kernel
    /// reads.
    pub(crate) fn new(weight: &Tensor, bias: &Tensor) -> Result<Self> {
        let (outputs, inputs) = weight.dims2()?;
        let bias = bias.flatten_all()?.to_vec1::<f32>()?;
        if bias.len() != outputs {
            candle_core::bail!("bias of {} for {outputs} outputs", bias.len());
        }
        let weight = weight.flatten_all()?.to_vec1::<f32>()?;
        Ok(Self::from_rows(
            &weight,
            bias,
            (outputs, inputs),
            panels::panels_preferred(),
        ))
    }

    /// From a `(outputs, inputs)` row-major weight, as [`Weights::Panels`] when `panels`, else
    /// transposed for gemm.
    fn from_rows(
        weight: &[f32],
        bias: Vec<f32>,
        (outputs, inputs): (usize, usize),
        panels: bool,
    ) -> Self {
        let weights = if panels {
            Weights::Panels(Panels::from_weight(weight, outputs, inputs))
        } else {
            let mut t = vec![0.0f32; weight.len()];
            for (o, row) in weight.chunks_exact(inputs.max(1)).enumerate().take(outputs) {
                for (i, v) in row.iter().enumerate() {
                    t[i * outputs + o] = *v;
                }
            }
            Weights::Transposed(t)
        };
        Dense {
            weights,
            bias,
            inputs,
            outputs,
        }
    }

    /// The weight as `(outputs, inputs)` row-major f32, read back from its kernel's layout
    /// (`None` when it is already quantized).
    fn weight_rows(&self) -> Option<Vec<f32>> {
        let (outputs, inputs) = (self.outputs, self.inputs);
        let mut w = vec![0.0f32; outputs * inputs];
        match &self.weights {
            Weights::Transposed(t) => {
                for (o, row) in w.chunks_exact_mut(inputs.max(1)).enumerate() {
                    for (i, v) in row.iter_mut().enumerate() {
                        *v = t[i * outputs + o];
                    }
                }
            }
            Weights::Panels(p) => {
                for (o, row) in w.chunks_exact_mut(inputs.max(1)).enumerate() {
                    for (i, v) in row.iter_mut().enumerate() {
                        *v = p.get(i, o);
                    }
                }
            }
            Weights::Int8(_) => return None,
        }
        Some(w)
    }

    /// Quantize the weight to int8 per output channel ([`super::super::int8`]); the bias stays f32.
    /// A layer already quantized stays as it is.
    pub(crate) fn quantize_int8(&mut self) {
        if let Some(w) = self.weight_rows() {
            self.weights =
                Weights::Int8(QuantizedPanels::from_weight(&w, self.outputs, self.inputs));
        }
    }

    /// `out = x · Wᵀ` (or `out += x · Wᵀ` when `accumulate`) for `rows` rows of `x`, then
    /// `epilogue` on every output; single-threaded, or split by output columns across rayon's
    /// pool when `split`.
    ///
    /// # Panics
    /// When `x` or `out` is shorter than `rows` rows (an internal shape error).
    pub(super) fn product(
        &self,
        x: &[f32],
        rows: usize,
        out: &mut [f32],
        accumulate: bool,
        epilogue: Epilogue,
        split: bool,
    ) {
        assert!(
            x.len() >= rows * self.inputs && out.len() >= rows * self.outputs,
            "Dense::product: buffers shorter than {rows} rows"
        );
        let panels = self.outputs.div_ceil(NR);
        let tasks = if split {
            panels.min(4 * rayon::current_num_threads()).max(1)
        } else {
            1
        };
        let dest = Dest(out.as_mut_ptr());
        // int8 weights: the rows are quantized once, before the column tasks share them.
        let quantized = match &self.weights {
            Weights::Int8(_) => Some(QuantizedRows::quantize(x, rows, self.inputs)),
            _ => None,
        };
        let task = |t: usize| {
            let group = panels * t / tasks..panels * (t + 1) / tasks;
            let input = match &quantized {
                Some(q) => Input::Quantized(q),
                None => Input::F32(x),
            };
            // SAFETY: `out` holds `rows` rows of `outputs` (asserted above); task `t` alone
            // writes the columns of panels `group`.
            unsafe { self.product_columns(input, rows, dest, group, accumulate, epilogue) };
        };
        if tasks == 1 {
            task(0);
        } else {
            (0..tasks).into_par_iter().for_each(task);
        }
    }

    /// [`Dense::product`]'s work on the output columns of panels `group` (16 columns each).
    ///
    /// # Safety
    /// `out` valid for `rows` rows of `outputs`; no other thread touches these columns.
    unsafe fn product_columns(
        &self,
        input: Input,
        rows: usize,
        out: Dest,
        group: Range<usize>,
        accumulate: bool,
        epilogue: Epilogue,
    ) {
        let cols = group.start * NR..self.outputs.min(group.end * NR);
        if rows == 0 || cols.is_empty() {
            return;
        }
        match (&self.weights, input) {
            // SAFETY: passed on from the caller.
            (Weights::Int8(w), Input::Quantized(q)) => unsafe {
                matmul_quantized(q, w, group, out.0, self.outputs, accumulate)
            },
            (Weights::Int8(_), Input::F32(_)) | (_, Input::Quantized(_)) => {
                unreachable!("Dense::product quantizes the rows exactly for int8 weights")
            }
            // SAFETY: passed on from the caller.
            (Weights::Panels(p), Input::F32(x)) => unsafe {
                matmul_panels(
                    rows,
                    x,
                    self.inputs,
                    p,
                    group,
                    out.0,
                    self.outputs,
                    accumulate,
                )
            },
            // SAFETY: columns `cols` of `out`, passed on from the caller; `b` starts at the
            // first column.
            (Weights::Transposed(w), Input::F32(x)) => unsafe {
                matmul_ptr(
                    (rows, cols.len(), self.inputs),
                    x,
                    self.inputs,
                    (&w[cols.start..], self.outputs, 1),
                    out.0.add(cols.start),
                    self.outputs,
                    accumulate,
                )
            },
        }
        let bias = &self.bias[cols.clone()];
        for r in 0..rows {
            // SAFETY: row r's columns `cols` are this task's.
            let row = unsafe {
                std::slice::from_raw_parts_mut(out.0.add(r * self.outputs + cols.start), cols.len())
            };
            match epilogue {
                Epilogue::None => {}
                Epilogue::Bias => kernels::add_bias(row, bias),
                Epilogue::BiasActivation(act) => kernels::bias_activation(row, bias, act),
            }
        }
    }
}

/// The left-hand side of one product task: f32 rows, or the same rows quantized for int8
/// weights.
#[derive(Clone, Copy)]
pub(super) enum Input<'a> {
    F32(&'a [f32]),
    Quantized(&'a QuantizedRows),
}
