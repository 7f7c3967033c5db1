//! The web page `GET /` serves: one self-contained HTML file (inline CSS and script, no
//! external assets), so it works offline.

/// The page's HTML.
pub const PAGE: &str = include_str!("page.html");
