//! Markdown body → plain-text sections and code blocks, with pulldown-cmark.
//!
//! Using a real CommonMark parser means `#` lines inside fenced code never become headings.
//! Section text keeps paragraphs (separated by blank lines), list items (one per line, `- ` or
//! `N. ` prefixed, nested items indented by two spaces), table rows (cells joined by ` | `)
//! and inline code; code blocks, HTML and link targets are left out.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use crate::parsed::{CodeBlock, Section};

/// Sections (one per heading, plus a level-1 section with an empty title for text before the
/// first heading) and code blocks of `body`, both in document order.
pub(crate) fn parse_markdown(body: &str) -> (Vec<Section>, Vec<CodeBlock>) {
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut b = Builder::default();
    for ev in Parser::new_ext(body, opts) {
        b.event(ev);
    }
    b.flush();
    (b.sections, b.blocks)
}

#[derive(Default)]
struct Builder {
    sections: Vec<Section>,
    blocks: Vec<CodeBlock>,
    /// Level and title of the section being filled; `None` before the first heading.
    head: Option<(u8, String)>,
    text: String,
    /// Heading being read (level, title so far).
    heading: Option<(u8, String)>,
    /// Code block being read (language, code so far).
    code: Option<(Option<String>, String)>,
    /// Open lists: next number for ordered lists, `None` for bullets.
    lists: Vec<Option<u64>>,
    cell: usize,
}

impl Builder {
    fn event(&mut self, ev: Event<'_>) {
        match ev {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) | Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                self.push(&t)
            }
            Event::SoftBreak => self.push(" "),
            Event::HardBreak => self.push("\n"),
            Event::Rule => self.para(),
            _ => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Heading { level, .. } => {
                self.flush();
                self.heading = Some((level as u8, String::new()));
            }
            Tag::CodeBlock(kind) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info_lang(&info),
                    CodeBlockKind::Indented => None,
                };
                self.code = Some((lang, String::new()));
            }
            Tag::List(first) => {
                self.newline();
                self.lists.push(first);
            }
            Tag::Item => {
                self.newline();
                let depth = self.lists.len().saturating_sub(1);
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        *n += 1;
                        format!("{}. ", *n - 1)
                    }
                    _ => "- ".to_owned(),
                };
                self.text.push_str(&"  ".repeat(depth));
                self.text.push_str(&marker);
            }
            Tag::Table(_) => self.para(),
            Tag::TableHead | Tag::TableRow => self.cell = 0,
            Tag::TableCell => {
                if self.cell > 0 {
                    self.text.push_str(" | ");
                }
                self.cell += 1;
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(_) => {
                if let Some((level, title)) = self.heading.take() {
                    self.head = Some((level, compact(&title)));
                }
            }
            TagEnd::CodeBlock => {
                if let Some((lang, code)) = self.code.take() {
                    self.blocks.push(CodeBlock { lang, code });
                }
                self.para();
            }
            TagEnd::List(_) => {
                self.lists.pop();
                self.newline();
                if self.lists.is_empty() {
                    self.para();
                }
            }
            TagEnd::Paragraph if self.lists.is_empty() => self.para(),
            TagEnd::Table | TagEnd::BlockQuote(_) => self.para(),
            TagEnd::Paragraph | TagEnd::Item | TagEnd::TableHead | TagEnd::TableRow => {
                self.newline()
            }
            _ => {}
        }
    }

    fn push(&mut self, s: &str) {
        if let Some((_, title)) = &mut self.heading {
            title.push_str(s);
        } else if let Some((_, code)) = &mut self.code {
            code.push_str(s);
        } else {
            self.text.push_str(s);
        }
    }

    fn newline(&mut self) {
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
        }
    }

    /// End a block: leave one blank line after the text so far.
    fn para(&mut self) {
        if !self.text.is_empty() && !self.text.ends_with("\n\n") {
            self.newline();
            self.text.push('\n');
        }
    }

    /// Close the current section (the preamble only when it has text).
    fn flush(&mut self) {
        let text = tidy(&std::mem::take(&mut self.text));
        match self.head.take() {
            Some((level, title)) => self.sections.push(Section { level, title, text }),
            None if !text.is_empty() => self.sections.push(Section {
                level: 1,
                title: String::new(),
                text,
            }),
            None => {}
        }
    }
}

/// First word of a fence info string, lower-cased (`{r}` and `.py` forms unwrapped).
fn info_lang(info: &str) -> Option<String> {
    let word = info
        .split(|c: char| c.is_whitespace() || c == ',')
        .find(|w| !w.is_empty())?;
    let word = word.trim_matches(|c| matches!(c, '{' | '}' | '.'));
    (!word.is_empty()).then(|| word.to_lowercase())
}

fn compact(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Trim line ends, collapse runs of blank lines to one, trim the whole.
fn tidy(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut blank = 0;
    for line in s.lines().map(str::trim_end) {
        if line.is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_in_fenced_code_is_not_a_heading() {
        let md = "# Usage\n\nRun it:\n\n```bash\n# install first\npip install x\n```\n\nThen `go`.\n\n## Outputs\n- a.csv\n";
        let (sections, blocks) = parse_markdown(md);
        let titles: Vec<_> = sections.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(titles, ["Usage", "Outputs"]);
        assert_eq!(sections[0].text, "Run it:\n\nThen go.");
        assert_eq!(sections[1].level, 2);
        assert_eq!(sections[1].text, "- a.csv");
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].lang.as_deref(), Some("bash"));
        assert!(blocks[0].code.starts_with("# install first"));
    }

    #[test]
    fn preamble_lists_tables_and_indented_code() {
        let md = "Intro **bold**.\n\n# T `x`\n1. one\n2. two\n   - sub\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n    indented\n\n```Python title=x\np\n```\n";
        let (sections, blocks) = parse_markdown(md);
        assert_eq!(sections[0].level, 1);
        assert_eq!(sections[0].title, "");
        assert_eq!(sections[0].text, "Intro bold.");
        assert_eq!(sections[1].title, "T x");
        assert_eq!(sections[1].text, "1. one\n2. two\n  - sub\n\na | b\n1 | 2");
        assert_eq!(blocks[0].lang, None);
        assert_eq!(blocks[0].code, "indented\n");
        assert_eq!(blocks[1].lang.as_deref(), Some("python"));
    }

    #[test]
    fn no_preamble_section_when_body_starts_with_heading() {
        let (sections, _) = parse_markdown("\n# A\n\n## B\ntext");
        assert_eq!(sections.len(), 2);
        assert_eq!(sections[0].text, "");
        assert_eq!(sections[1].text, "text");
    }
}
