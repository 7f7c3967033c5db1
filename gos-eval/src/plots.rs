//! SVG plots of a report (plotters, SVG backend only).

use crate::error::{Error, Result};
use crate::metric::Metric;
use crate::report::EvalReport;
use crate::run::RANKED_DEPTH;
use plotters::prelude::*;
use std::path::Path;

/// Largest cut-off of the recall@k curves: the ranking depth each record keeps.
const K_MAX: usize = RANKED_DEPTH;

type DrawResult = std::result::Result<(), Box<dyn std::error::Error>>;

/// Colours that stay apart on white and for common colour-vision deficiencies (the Okabe–Ito
/// set), one per arm, cycling after eight.
const COLORS: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(0, 0, 0),
    RGBColor(240, 228, 66),
];

fn color(i: usize) -> RGBColor {
    COLORS[i % COLORS.len()]
}

/// The error of a failed drawing, naming the file.
fn plot_error(path: &Path) -> impl Fn(Box<dyn std::error::Error>) -> Error + '_ {
    move |e| Error::Plot {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// `recall_at_k.svg`: mean recall@k over T+ of the ranked list, k = 1..=[`RANKED_DEPTH`], one
/// line per arm.
///
/// # Errors
/// [`Error::Plot`]: drawing or writing the file fails.
pub fn recall_at_k(report: &EvalReport, path: &Path) -> Result<()> {
    draw_recall_at_k(report, path).map_err(plot_error(path))
}

fn draw_recall_at_k(report: &EvalReport, path: &Path) -> DrawResult {
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Recall@k of the ranked list (mean over tasks with an available oracle)",
            ("sans-serif", 18),
        )
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(1f64..K_MAX as f64, 0f64..1.02f64)?;
    chart
        .configure_mesh()
        .x_desc("k")
        .y_desc("recall@k")
        .x_labels(10)
        .x_label_formatter(&|k: &f64| format!("{k:.0}"))
        .y_labels(11)
        .light_line_style(BLACK.mix(0.04))
        .draw()?;
    for (i, name) in report.arms.iter().enumerate() {
        let curve = report.recall_curve(i, K_MAX);
        let style = color(i).stroke_width(2);
        chart
            .draw_series(LineSeries::new(
                curve.into_iter().map(|(k, r)| (k as f64, r)),
                style,
            ))?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

/// `recall_diff.svg`: per task in T+, the `recall_available` difference of each arm from the
/// baseline arm, as horizontal bars grouped by task (first task at the top).
///
/// # Errors
/// [`Error::Plot`]: drawing or writing the file fails.
pub fn recall_diff(report: &EvalReport, path: &Path) -> Result<()> {
    draw_recall_diff(report, path).map_err(plot_error(path))
}

fn draw_recall_diff(report: &EvalReport, path: &Path) -> DrawResult {
    let others: Vec<usize> = (0..report.arms.len())
        .filter(|&i| i != report.baseline)
        .collect();
    // Tasks in T+ (the difference is defined), in file order.
    let ids: Vec<String> = report
        .recall_diffs(report.baseline)
        .into_iter()
        .filter(|(_, d)| d.is_some())
        .map(|(id, _)| id.to_string())
        .collect();
    let n = ids.len().max(1);
    let longest = ids.iter().map(|s| s.chars().count()).max().unwrap_or(8);
    let height = (120 + 22 * n) as u32;
    let root = SVGBackend::new(path, (960, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let caption = format!(
        "Per-task available-oracle recall: arm minus {}",
        report.arms[report.baseline]
    );
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 18))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size((longest * 7 + 16).clamp(60, 360) as u32)
        .build_cartesian_2d(-1.05f64..1.05f64, -0.5f64..n as f64 - 0.5)?;
    // Task i sits at y = n - 1 - i, so the first task is at the top.
    let label_ids = ids.clone();
    chart
        .configure_mesh()
        .x_desc(format!("{} difference", Metric::RecallAvailable))
        .x_labels(9)
        .y_labels(n)
        .y_label_formatter(&move |y: &f64| {
            let r = y.round();
            if (y - r).abs() > 1e-6 || r < 0.0 || r as usize >= n {
                return String::new();
            }
            label_ids
                .get(n - 1 - r as usize)
                .cloned()
                .unwrap_or_default()
        })
        .disable_y_mesh()
        .draw()?;
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(0.0, -0.5), (0.0, n as f64 - 0.5)],
        BLACK.stroke_width(1),
    )))?;
    let width = 0.8 / others.len().max(1) as f64;
    for (j, &arm) in others.iter().enumerate() {
        let diffs: Vec<f64> = report
            .recall_diffs(arm)
            .into_iter()
            .filter_map(|(_, d)| d)
            .collect();
        let fill = color(arm).filled();
        let bars = diffs.into_iter().enumerate().map(move |(i, d)| {
            let top = (n - 1 - i) as f64 + 0.4 - j as f64 * width;
            // A zero difference still shows as a hairline so the bar's presence is visible.
            let d = if d == 0.0 { 0.004 } else { d };
            Rectangle::new([(0.0, top), (d, top - width)], fill)
        });
        chart
            .draw_series(bars)?
            .label(report.arms[arm].as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], fill));
    }
    if !others.is_empty() {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}
