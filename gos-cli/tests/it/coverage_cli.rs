//! `gos retrieve --coverage`: facet seeding and coverage selection through the real binary on
//! the fixture library, and the `facet` field of the JSON bundle.

use crate::util::{gos, repo};

fn retrieve(ws: &std::path::Path, extra: &[&str], task: &str) -> serde_json::Value {
    let o = gos()
        .args(["retrieve", "--json", "-w"])
        .arg(ws)
        .args(extra)
        .arg(task)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn coverage_names_the_facet_each_entry_covers_and_is_off_by_default() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let o = gos()
        .arg("build")
        .arg(repo().join("fixtures/library"))
        .arg("-w")
        .arg(&ws)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let task = "Steps:\n1. Extract the audio track from /root/talk.mp4 with ffmpeg.\n\
                2. Transcribe the speech to text.\n3. Translate the subtitles to French.\n";
    let plain = retrieve(&ws, &[], task);
    let skills = plain["skills"].as_array().unwrap();
    assert!(!skills.is_empty());
    assert!(skills.iter().all(|s| s.get("facet").is_none()));

    let covered = retrieve(&ws, &["--set", "coverage=true"], task);
    let facets: Vec<(String, String, String)> = covered["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s.get("facet").is_some())
        .map(|s| {
            (
                s["id"].as_str().unwrap().to_owned(),
                s["facet"]["kind"].as_str().unwrap().to_owned(),
                s["facet"]["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    // Each step is covered by the skill made for it, and the entry says which step.
    for (id, step) in [
        (
            "media/ffmpeg-extract-audio",
            "Extract the audio track from /root/talk.mp4 with ffmpeg.",
        ),
        ("media/speech-to-text", "Transcribe the speech to text."),
        (
            "media/subtitle-translation",
            "Translate the subtitles to French.",
        ),
    ] {
        assert!(
            facets
                .iter()
                .any(|f| f.0 == id && f.1 == "step" && f.2 == step),
            "{id} should cover `{step}`: {facets:?}"
        );
    }
}
