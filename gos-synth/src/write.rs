//! Writing a planned library to disk.

use crate::SynthLibrary;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// An error-mapping closure that puts `p` in front of the message.
fn with_path(p: &Path) -> impl Fn(io::Error) -> io::Error + '_ {
    move |e| io::Error::new(e.kind(), format!("{}: {e}", p.display()))
}

/// What [`write_library`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteSummary {
    /// `out/library`.
    pub library: PathBuf,
    /// `out/tasks.jsonl`.
    pub tasks: PathBuf,
    /// Skill packages written.
    pub skills: usize,
    /// Tasks written.
    pub task_count: usize,
    /// Bytes of SKILL.md text written.
    pub bytes: u64,
}

/// Write `lib` under `out`: `out/library/synth-BBBB/<id>/SKILL.md` for every skill and
/// `out/tasks.jsonl` (one task a line, oracle folders relative to `out/library`). `progress`
/// is called with the number of skills written so far, every 1,000 skills and at the end.
///
/// # Errors
/// I/O errors, with the path that failed in the message; `out/library` must not exist yet
/// (nothing is overwritten).
pub fn write_library(
    lib: &SynthLibrary,
    out: &Path,
    mut progress: impl FnMut(usize),
) -> io::Result<WriteSummary> {
    let library = out.join("library");
    if library.exists() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "{} already exists; choose an empty output folder",
                library.display()
            ),
        ));
    }
    let mut bytes = 0u64;
    for (i, s) in lib.skills.iter().enumerate() {
        let dir = library.join(&s.dir);
        fs::create_dir_all(&dir).map_err(with_path(&dir))?;
        let text = lib.skill_markdown(i);
        bytes += text.len() as u64;
        let file = dir.join("SKILL.md");
        fs::write(&file, text).map_err(with_path(&file))?;
        if (i + 1) % 1000 == 0 {
            progress(i + 1);
        }
    }
    progress(lib.skills.len());
    let tasks_path = out.join("tasks.jsonl");
    let tasks = lib.tasks();
    let mut f = io::BufWriter::new(fs::File::create(&tasks_path).map_err(with_path(&tasks_path))?);
    for t in &tasks {
        let line = serde_json::to_string(t).map_err(io::Error::other)?;
        writeln!(f, "{line}").map_err(with_path(&tasks_path))?;
    }
    f.flush().map_err(with_path(&tasks_path))?;
    Ok(WriteSummary {
        library,
        tasks: tasks_path,
        skills: lib.skills.len(),
        task_count: tasks.len(),
        bytes,
    })
}
