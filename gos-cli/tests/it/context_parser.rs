//! An independent reader of gos's rendered context, for the tests: splits a bundle into skill
//! blocks by its framing (`## Skill:`, `Source:`, `Why:`, optional `Warnings:`), tracks code
//! fences itself, and cross-checks with a CommonMark parser (pulldown-cmark) that every
//! `## Skill:` line is a real level-2 heading, not text inside a code block.

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag};
use serde_json::Value;

/// One skill block of a rendered context.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// Text after `## Skill: `.
    pub name: String,
    /// Text after `Source: `.
    pub source: String,
    /// Text after `Why: `.
    pub why: String,
    /// Text after `Warnings: `, when the block has that line.
    pub warnings: Option<String>,
    /// Content lines.
    pub body: Vec<String>,
}

/// The skill blocks of `context`, or what is wrong with its framing.
pub fn blocks(context: &str) -> Result<Vec<Block>, String> {
    let mut out: Vec<Block> = Vec::new();
    let mut lines = context.split('\n').peekable();
    let expect = |lines: &mut std::iter::Peekable<std::str::Split<'_, char>>, label: &str| {
        let line = lines.next().ok_or(format!("missing {label}"))?;
        line.strip_prefix(label)
            .map(str::to_string)
            .ok_or(format!("expected {label:?}, got {line:?}"))
    };
    while let Some(line) = lines.next() {
        if let Some(name) = line.strip_prefix("## Skill: ") {
            let source = expect(&mut lines, "Source: ")?;
            let why = expect(&mut lines, "Why: ")?;
            let warnings = match lines.peek() {
                Some(l) if l.starts_with("Warnings: ") => {
                    Some(lines.next().unwrap()["Warnings: ".len()..].to_string())
                }
                _ => None,
            };
            out.push(Block {
                name: name.to_string(),
                source,
                why,
                warnings,
                body: Vec::new(),
            });
        } else if let Some(b) = out.last_mut() {
            b.body.push(line.to_string());
        }
    }
    Ok(out)
}

/// The fence (char, run length, indent width) left open at the end of `lines`, by the
/// CommonMark rules with any opening indentation.
pub fn open_fence(lines: &[String]) -> Option<(char, usize, usize)> {
    let mut open: Option<(char, usize, usize)> = None;
    for line in lines {
        let indent: usize = line
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .map(|c| if c == '\t' { 4 } else { 1 })
            .sum();
        let t = line.trim_start_matches([' ', '\t']);
        let Some(ch) = t.chars().next().filter(|c| *c == '`' || *c == '~') else {
            continue;
        };
        let run = t.chars().take_while(|c| *c == ch).count();
        if run < 3 {
            continue;
        }
        let rest = &t[run..];
        match open {
            None if ch == '~' || !rest.contains('`') => open = Some((ch, run, indent)),
            Some((c, n, i))
                if c == ch && run >= n && rest.trim().is_empty() && indent <= i.max(3) =>
            {
                open = None
            }
            _ => {}
        }
    }
    open
}

/// Byte offsets of the level-2 headings whose text starts `Skill: `, by pulldown-cmark.
pub fn skill_heading_offsets(context: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut in_h2: Option<(usize, String)> = None;
    for (event, range) in Parser::new(context).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading {
                level: HeadingLevel::H2,
                ..
            }) => in_h2 = Some((range.start, String::new())),
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, text)) = in_h2.as_mut() {
                    text.push_str(&t);
                }
            }
            Event::End(pulldown_cmark::TagEnd::Heading(HeadingLevel::H2)) => {
                if let Some((start, text)) = in_h2.take()
                    && text.starts_with("Skill: ")
                {
                    out.push(start);
                }
            }
            _ => {}
        }
    }
    out
}

/// Byte offsets of the lines that start `## Skill: `.
pub fn header_line_offsets(context: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in context.split('\n') {
        if line.starts_with("## Skill: ") {
            out.push(at);
        }
        at += line.len() + 1;
    }
    out
}

/// `text` with control characters, bidirectional controls and zero-width characters escaped
/// the way gos documents for one-line fields (`\n`, `\r`, `\t`, `\u{hex}`).
pub fn escape_inline(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        let hidden = matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}');
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || hidden => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Check that the rendered context of a `gos retrieve --json` result parses back into exactly
/// its skills (names, sources, order), every block ends with its fences closed, the CommonMark
/// parser sees the same skill headings, and the context is within `max_chars`.
pub fn check_bundle(json: &Value, max_chars: usize) -> Result<Vec<Block>, String> {
    let context = json["rendered_context"]
        .as_str()
        .ok_or("no rendered_context")?;
    if context.chars().count() > max_chars {
        return Err(format!("{} chars > {max_chars}", context.chars().count()));
    }
    // Skill content keeps its tabs; nothing else below U+0020 (nor DEL, nor C1) remains.
    if let Some(c) = context
        .chars()
        .find(|c| c.is_control() && *c != '\n' && *c != '\t')
    {
        return Err(format!("control character {c:?} in the context"));
    }
    let parsed = blocks(context)?;
    let skills = json["skills"].as_array().ok_or("no skills")?;
    if parsed.len() != skills.len() {
        return Err(format!(
            "{} blocks for {} skills",
            parsed.len(),
            skills.len()
        ));
    }
    for (b, s) in parsed.iter().zip(skills) {
        let name = escape_inline(s["name"].as_str().unwrap_or_default());
        let source = escape_inline(s["source"].as_str().unwrap_or_default());
        if b.name != name {
            return Err(format!("block name {:?} != skill name {name:?}", b.name));
        }
        if b.source != source && !b.source.starts_with(&format!("{source} (escaped:")) {
            return Err(format!(
                "block source {:?} != skill source {source:?}",
                b.source
            ));
        }
        let flagged = s["warnings"].as_array().is_some_and(|w| !w.is_empty());
        if flagged != b.warnings.is_some() {
            return Err(format!("warnings line of {name} does not match the JSON"));
        }
        if let Some(f) = open_fence(&b.body) {
            return Err(format!("block {name} ends inside a {f:?} fence"));
        }
        let clipped = s["clipped"].as_bool().unwrap_or(false);
        let note = b
            .body
            .iter()
            .rev()
            .find(|l| !l.is_empty())
            .is_some_and(|l| l.starts_with("[gos: clipped here, "));
        if clipped != note {
            return Err(format!(
                "block {name}: clipped {clipped} but clip note {note}"
            ));
        }
    }
    let headings = skill_heading_offsets(context);
    let lines = header_line_offsets(context);
    if headings != lines {
        return Err(format!(
            "CommonMark sees skill headings at {headings:?}, the framing at {lines:?}"
        ));
    }
    Ok(parsed)
}
