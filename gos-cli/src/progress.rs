//! Progress bars on stderr for long work, hidden with `--quiet` or when stderr is not a
//! terminal.

use gos_build::build::BuildProgress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::Mutex;

/// indicatif bars for the build stages.
pub struct Bars {
    bar: Mutex<Option<ProgressBar>>,
    hidden: bool,
}

impl Bars {
    /// Bars drawn on stderr unless `hidden`.
    pub fn new(hidden: bool) -> Self {
        Bars {
            bar: Mutex::new(None),
            hidden,
        }
    }
}

impl BuildProgress for Bars {
    fn stage(&self, name: &str, total: Option<u64>) {
        let bar = match total {
            Some(t) => ProgressBar::new(t).with_style(
                ProgressStyle::with_template(
                    "{prefix:>9} [{bar:40}] {pos}/{len} {per_sec} eta {eta}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            ),
            None => ProgressBar::new_spinner().with_style(
                ProgressStyle::with_template("{prefix:>9} {spinner} {elapsed}")
                    .expect("valid template"),
            ),
        };
        if self.hidden {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        } else {
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        bar.set_prefix(name.to_string());
        *self.bar.lock().expect("bar lock") = Some(bar);
    }

    fn advance(&self, n: u64) {
        if let Some(b) = self.bar.lock().expect("bar lock").as_ref() {
            b.inc(n);
        }
    }

    fn finish_stage(&self) {
        if let Some(b) = self.bar.lock().expect("bar lock").take() {
            b.finish_and_clear();
        }
    }
}
