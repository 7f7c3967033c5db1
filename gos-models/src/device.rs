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
    Device::new_cuda(ordinal).map_err(|e| invalid(format!("cannot open cuda:{ordinal}: {e}")))
}

#[cfg(not(feature = "cuda"))]
fn cuda_device(ordinal: usize) -> Result<Device> {
    Err(invalid(format!(
        "cuda:{ordinal} requested, but this gos was built without the `cuda` feature; \
         rebuild with `cargo build --release -p gos-cli --features cuda` (needs a CUDA toolkit)"
    )))
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
    }
}
