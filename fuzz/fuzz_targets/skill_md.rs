//! Fuzz target: the SKILL.md parser and the normalization that reads its output.
//!
//! Any byte string goes through the same path as a SKILL.md read from disk
//! (`parse_bytes`: decoding, frontmatter split with repairs, markdown), then `normalize`.
//! A panic, an abort or a timeout (`-timeout=`) is a finding; the checks below turn broken
//! invariants into panics too.
#![no_main]

use gos_build::frontmatter;
use gos_build::normalize::normalize;
use gos_build::package::parse_bytes;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(mut pkg) = parse_bytes(data) {
        assert!(!pkg.raw.contains('\r'), "normalized text keeps a CR");
        assert!(
            !pkg.raw.starts_with('\u{feff}'),
            "normalized text keeps a BOM"
        );
        assert!(pkg.sections.iter().all(|s| (1..=6).contains(&s.level)));
        pkg.id = "fuzz/pkg".into();
        pkg.source_path = "fuzz/pkg/SKILL.md".into();
        let n = normalize(&pkg);
        assert!(!n.node.name.is_empty(), "normalized skill without a name");
    }
    if let Ok(text) = std::str::from_utf8(data) {
        // The frontmatter splitter on its own: never panics, and its text has LF line ends.
        let split = frontmatter::split(text);
        assert!(!split.text.contains('\r'));
    }
});
