//! Build progress on stderr: indicatif bars on a terminal; one line per stage (count, time,
//! rate) when stderr is not a terminal (logs, CI); nothing with `--quiet`.

use gos_build::build::BuildProgress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Hidden,
    Bars,
    Lines,
}

/// The stage being shown in line mode.
struct Stage {
    name: String,
    total: Option<u64>,
    start: Instant,
}

/// Progress of the build stages on stderr.
pub struct Bars {
    bar: Mutex<Option<ProgressBar>>,
    stage: Mutex<Option<Stage>>,
    done: AtomicU64,
    mode: Mode,
}

/// A rate as people write it: `172/s`, `3.5/s` below 10, `0.25/s` below 1.
pub fn rate(per_sec: f64) -> String {
    if !per_sec.is_finite() || per_sec <= 0.0 {
        "0/s".to_owned()
    } else if per_sec >= 10.0 {
        format!("{per_sec:.0}/s")
    } else if per_sec >= 1.0 {
        format!("{per_sec:.1}/s")
    } else {
        format!("{per_sec:.2}/s")
    }
}

impl Bars {
    /// Bars on stderr, or nothing when `hidden`.
    pub fn new(hidden: bool) -> Self {
        Self::with_mode(hidden, true)
    }

    /// For stderr as it is: nothing when `quiet`; bars when stderr is a terminal; one line
    /// per stage otherwise.
    pub fn for_stderr(quiet: bool) -> Self {
        Self::with_mode(quiet, std::io::IsTerminal::is_terminal(&std::io::stderr()))
    }

    fn with_mode(quiet: bool, terminal: bool) -> Self {
        Bars {
            bar: Mutex::new(None),
            stage: Mutex::new(None),
            done: AtomicU64::new(0),
            mode: match (quiet, terminal) {
                (true, _) => Mode::Hidden,
                (false, true) => Mode::Bars,
                (false, false) => Mode::Lines,
            },
        }
    }
}

impl BuildProgress for Bars {
    fn stage(&self, name: &str, total: Option<u64>) {
        match self.mode {
            Mode::Hidden => {}
            Mode::Lines => {
                self.done.store(0, Ordering::Relaxed);
                *self.stage.lock().expect("stage lock") = Some(Stage {
                    name: name.to_owned(),
                    total,
                    start: Instant::now(),
                });
            }
            Mode::Bars => {
                let bar = match total {
                    Some(t) => ProgressBar::new(t).with_style(
                        ProgressStyle::with_template(
                            "{prefix:>9} [{bar:40}] {pos}/{len} {rate} eta {eta}",
                        )
                        .expect("valid template")
                        .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                            let _ = w.write_str(&rate(s.per_sec()));
                        })
                        .progress_chars("=> "),
                    ),
                    None => ProgressBar::new_spinner().with_style(
                        ProgressStyle::with_template("{prefix:>9} {spinner} {elapsed}")
                            .expect("valid template"),
                    ),
                };
                bar.set_draw_target(ProgressDrawTarget::stderr());
                bar.set_prefix(name.to_string());
                *self.bar.lock().expect("bar lock") = Some(bar);
            }
        }
    }

    fn advance(&self, n: u64) {
        match self.mode {
            Mode::Hidden => {}
            Mode::Lines => {
                self.done.fetch_add(n, Ordering::Relaxed);
            }
            Mode::Bars => {
                if let Some(b) = self.bar.lock().expect("bar lock").as_ref() {
                    b.inc(n);
                }
            }
        }
    }

    fn finish_stage(&self) {
        match self.mode {
            Mode::Hidden => {}
            Mode::Lines => {
                if let Some(s) = self.stage.lock().expect("stage lock").take() {
                    let secs = s.start.elapsed().as_secs_f64();
                    let done = self.done.load(Ordering::Relaxed);
                    let count = match s.total {
                        Some(t) => format!("{done}/{t}"),
                        None => done.to_string(),
                    };
                    if s.total.is_none() && done == 0 {
                        eprintln!("{:>9}: done in {secs:.1} s", s.name);
                    } else {
                        eprintln!(
                            "{:>9}: {count} in {secs:.1} s ({})",
                            s.name,
                            rate(done as f64 / secs.max(1e-9))
                        );
                    }
                }
            }
            Mode::Bars => {
                if let Some(b) = self.bar.lock().expect("bar lock").take() {
                    b.finish_and_clear();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::rate;

    #[test]
    fn rates_read_as_people_write_them() {
        assert_eq!(rate(172.31), "172/s");
        assert_eq!(rate(3.46), "3.5/s");
        assert_eq!(rate(0.254), "0.25/s");
        assert_eq!(rate(f64::NAN), "0/s");
    }
}
