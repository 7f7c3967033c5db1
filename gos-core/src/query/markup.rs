//! Query text before analysis: markdown stripped ([`Markup`]) and code-like tokens found
//! ([`prepare`]).
//!
//! Task texts are often markdown: `**bold**`, lists, links, inline code, fenced code blocks
//! holding example output (JSON, shell sessions), HTML. The analyzer already drops punctuation,
//! so what stripping changes is which *words* reach BM25: link targets and bare URLs
//! (`https`, `github`, `com`), HTML tag and attribute names, and, with
//! [`Markup::StripCode`], the contents of fenced and indented code blocks. Parsing is
//! pulldown-cmark's (CommonMark plus tables, strikethrough and task lists).
//!
//! Code-like tokens are the words a user writes for an artifact or a tool: inline code spans
//! (`` `openpyxl` ``), file names with an extension (`report.xlsx`, `.stl`; for a path, its
//! last component), `snake_case` and `CamelCase` identifiers and `--long-flags`, found in the
//! prose of the text (never inside code blocks, whose example output would flood the list).

use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};
use std::str::FromStr;

/// What happens to markdown in a query before analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Markup {
    /// The text is analyzed as given (the behaviour before markup handling existed).
    #[default]
    Keep,
    /// Markdown syntax, link targets, bare URLs and HTML are removed; code blocks stay as text.
    Strip,
    /// As [`Markup::Strip`], and code blocks are removed too.
    StripCode,
}

impl Markup {
    /// Every mode, in sweep order (the index is the sweep value of `markup`).
    pub const ALL: [Markup; 3] = [Markup::Keep, Markup::Strip, Markup::StripCode];

    /// Wire name (`keep`, `strip`, `strip-code`).
    pub fn as_str(self) -> &'static str {
        match self {
            Markup::Keep => "keep",
            Markup::Strip => "strip",
            Markup::StripCode => "strip-code",
        }
    }
}

impl FromStr for Markup {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Self> {
        Markup::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| crate::Error::InvalidOption {
                name: "QueryParams::markup",
                reason: format!("`{s}` is not one of keep, strip, strip-code"),
            })
    }
}

impl std::fmt::Display for Markup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A query text ready for analysis.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Prepared {
    /// The text to analyze: the input itself with [`Markup::Keep`], else the stripped text
    /// (blocks separated by newlines).
    pub text: String,
    /// Code-like tokens of the prose, in order of appearance, repeats kept (module docs).
    pub code: Vec<String>,
}

fn is_url(word: &str) -> bool {
    let w = word.trim_start_matches(['<', '(', '[', '"', '\'']);
    w.starts_with("http://") || w.starts_with("https://") || w.starts_with("www.")
}

/// Whether `word` (no surrounding punctuation) is a file name with an extension: an optional
/// stem of letters, digits, `_` and `-`, a dot, and an extension of 2 to 5 ASCII letters and
/// digits with at least one letter (so `e.g`, `3.10` and `U.S` are not files).
fn is_file_name(word: &str) -> bool {
    let Some((stem, ext)) = word.rsplit_once('.') else {
        return false;
    };
    (2..=5).contains(&ext.len())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && ext.chars().any(|c| c.is_ascii_alphabetic())
        && stem
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
}

/// The code-like part of one whitespace-separated `word` of prose, if any (module docs).
pub fn code_like(word: &str) -> Option<&str> {
    let w = word.trim_matches(|c: char| {
        matches!(
            c,
            '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | ',' | ';' | ':' | '!' | '?' | '"'
        ) || c == '\''
            || c == '*'
    });
    let w = w.strip_suffix('.').unwrap_or(w);
    if w.is_empty() || is_url(w) {
        return None;
    }
    if w.starts_with("--") && w.len() > 2 && w[2..].chars().all(|c| c.is_alphanumeric() || c == '-')
    {
        return Some(w);
    }
    let last = w.rsplit(['/', '\\']).next().unwrap_or(w);
    if last.is_empty() {
        return None;
    }
    if is_file_name(last) {
        return Some(last);
    }
    let chars: Vec<char> = last.chars().collect();
    let snake = chars
        .windows(3)
        .any(|p| p[1] == '_' && p[0].is_alphanumeric() && p[2].is_alphanumeric());
    let camel = chars
        .windows(2)
        .any(|p| p[0].is_lowercase() && p[1].is_uppercase());
    let word_like = chars.iter().all(|c| c.is_alphanumeric() || *c == '_');
    ((snake || camel) && word_like).then_some(last)
}

fn push_block_break(out: &mut String) {
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
}

/// Prepare `text` for analysis under `markup`, and collect its code-like tokens.
///
/// Cost: one markdown parse, linear in the text.
pub fn prepare(text: &str, markup: Markup) -> Prepared {
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut out = String::with_capacity(text.len());
    let mut code = Vec::new();
    let mut in_code_block = false;
    let mut in_autolink = false;
    for event in Parser::new_ext(text, opts) {
        match event {
            Event::Start(Tag::CodeBlock(_)) => {
                in_code_block = true;
                push_block_break(&mut out);
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code_block = false;
                push_block_break(&mut out);
            }
            Event::Start(Tag::Link {
                link_type: LinkType::Autolink | LinkType::Email,
                ..
            }) => in_autolink = true,
            Event::End(TagEnd::Link) => in_autolink = false,
            Event::Text(t) if in_code_block && markup != Markup::StripCode => out.push_str(&t),
            Event::Text(_) if in_code_block => {}
            Event::Text(_) if in_autolink => {}
            Event::Text(t) => {
                for word in t.split_whitespace() {
                    if is_url(word) {
                        continue;
                    }
                    if let Some(c) = code_like(word) {
                        code.push(c.to_string());
                    }
                    out.push_str(word);
                    out.push(' ');
                }
            }
            Event::Code(t) => {
                code.push(t.to_string());
                out.push_str(&t);
                out.push(' ');
            }
            Event::SoftBreak | Event::HardBreak => out.push('\n'),
            Event::End(
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::Item
                | TagEnd::TableCell
                | TagEnd::BlockQuote(_),
            ) => push_block_break(&mut out),
            // Markdown syntax, HTML, rules, footnote marks: nothing to analyze.
            _ => {}
        }
    }
    if markup == Markup::Keep {
        out = text.to_string();
    }
    Prepared { text: out, code }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TASK: &str = "Parse the **binary STL** in `/root/scan_data.stl` with \
        [trimesh](https://trimesh.org/docs) and save to report.xlsx.\n\n\
        See <https://example.com/help> or https://other.org/x for help.\n\n\
        ```json\n{\"main_part_mass\": 1}\n```\n\n\
        - Use `openpyxl` and the DataFrame API.\n- Pass --output-dir, e.g. 3.10 is fine.\n\n\
        <div class=\"note\">html</div>\n";

    #[test]
    fn strip_keeps_words_and_drops_urls_html_and_optionally_code_blocks() {
        let p = prepare(TASK, Markup::Strip);
        assert_eq!(
            p.text,
            "Parse the binary STL in /root/scan_data.stl with trimesh and save to \
             report.xlsx. \nSee or for help. \n{\"main_part_mass\": 1}\nUse openpyxl and \
             the DataFrame API. \nPass --output-dir, e.g. 3.10 is fine. \n"
        );
        let p = prepare(TASK, Markup::StripCode);
        assert!(!p.text.contains("main_part_mass"), "{}", p.text);
        assert!(p.text.contains("trimesh and save"));
        // Keep analyzes the input as it is, but still finds the code-like tokens.
        let p = prepare(TASK, Markup::Keep);
        assert_eq!(p.text, TASK);
        assert_eq!(
            p.code,
            [
                "/root/scan_data.stl",
                "report.xlsx",
                "openpyxl",
                "DataFrame",
                "--output-dir"
            ]
        );
    }

    #[test]
    fn code_like_words() {
        assert_eq!(code_like("data/input.csv,"), Some("input.csv"));
        assert_eq!(code_like(".stl"), Some(".stl"));
        assert_eq!(code_like("(read_csv)"), Some("read_csv"));
        assert_eq!(code_like("PowerPoint."), Some("PowerPoint"));
        assert_eq!(code_like("--dry-run"), Some("--dry-run"));
        for plain in [
            "e.g.",
            "3.10",
            "U.S.",
            "Hello",
            "end.",
            "/root/",
            "https://a.io/x.py",
        ] {
            assert_eq!(code_like(plain), None, "{plain}");
        }
    }

    #[test]
    fn markup_names_round_trip() {
        for m in Markup::ALL {
            assert_eq!(m.as_str().parse::<Markup>().unwrap(), m);
        }
        assert!("none".parse::<Markup>().is_err());
    }
}
