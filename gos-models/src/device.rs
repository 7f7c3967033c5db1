//! Where neural models (the sentence encoder and the cross-encoder) run.
//!
//! `cpu` always works. `cuda` or `cuda:N` needs a build with the `cuda` cargo feature; without it
//! the request is refused with a message that says how to get it, never silently run on the CPU.

pub use candle_core::Device;
use gos_core::{Error, Result};

/// Parse a device name: `cpu`, `cuda` (same as `cuda:0`) or `cuda:N` with N the CUDA ordinal.
///
/// # Errors
/// [`Error::InvalidOption`] (option `device`) for any other text, and for `cuda*` when this
/// binary was built without the `cuda` feature or when the GPU cannot be opened.
pub fn parse_device(name: &str) -> Result<Device> {
    let name = name.trim();
    if name.eq_ignore_ascii_case("cpu") {
        return Ok(Device::Cpu);
    }
    let ordinal = match name.strip_prefix("cuda") {
        Some("") => 0,
        Some(rest) => rest
            .strip_prefix(':')
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or_else(|| invalid(format!("`{name}` is not cpu, cuda or cuda:N")))?,
        None => return Err(invalid(format!("`{name}` is not cpu, cuda or cuda:N"))),
    };
    cuda_device(ordinal)
}

#[cfg(feature = "cuda")]
fn cuda_device(ordinal: usize) -> Result<Device> {
    Device::new_cuda(ordinal).map_err(|e| {
        invalid(format!(
            "cannot open cuda:{ordinal}: {}; check the GPU and its driver with `nvidia-smi`, \
             or run on the CPU with `--device cpu`",
            without_backtrace(e)
        ))
    })
}

#[cfg(not(feature = "cuda"))]
fn cuda_device(ordinal: usize) -> Result<Device> {
    Err(invalid(format!(
        "cuda:{ordinal} requested, but this gos was built without the `cuda` feature; run on the \
         CPU with `--device cpu`, or rebuild with `cargo build --release -p gos-cli --features \
         cuda` (needs a CUDA toolkit, docs/performance.md)"
    )))
}

/// `e` without the backtraces candle attaches ([`candle_core::Error::bt`] wraps an error in
/// `WithBacktrace` when `RUST_BACKTRACE` is set): a user asking for a GPU the machine lacks
/// gets one line, not twenty frames of candle's internals.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
fn without_backtrace(e: candle_core::Error) -> candle_core::Error {
    match e {
        candle_core::Error::WithBacktrace { inner, .. } => without_backtrace(*inner),
        candle_core::Error::Context { inner, context } => candle_core::Error::Context {
            inner: Box::new(without_backtrace(*inner)),
            context,
        },
        other => other,
    }
}

fn invalid(reason: String) -> Error {
    Error::InvalidOption {
        name: "device",
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_parses_and_junk_is_refused() {
        assert!(matches!(parse_device("cpu").unwrap(), Device::Cpu));
        assert!(matches!(parse_device(" CPU ").unwrap(), Device::Cpu));
        let err = parse_device("tpu").unwrap_err().to_string();
        assert!(err.contains("`tpu` is not cpu, cuda or cuda:N"), "{err}");
        assert!(parse_device("cuda:x").is_err());
    }

    #[cfg(not(feature = "cuda"))]
    #[test]
    fn cuda_without_feature_says_how_to_get_it() {
        let err = parse_device("cuda:0").unwrap_err().to_string();
        assert!(err.contains("--features cuda"), "{err}");
        assert!(err.contains("built without the `cuda` feature"), "{err}");
        assert!(err.contains("`--device cpu`"), "{err}");
    }

    #[test]
    fn backtraces_are_stripped_from_device_errors() {
        let inner = candle_core::Error::Msg("no CUDA-capable device is detected".into());
        let wrapped = candle_core::Error::WithBacktrace {
            inner: Box::new(inner),
            backtrace: Box::new(std::backtrace::Backtrace::force_capture()),
        };
        assert!(wrapped.to_string().lines().count() > 1);
        let short = without_backtrace(wrapped).to_string();
        assert_eq!(short, "no CUDA-capable device is detected");
    }
}
