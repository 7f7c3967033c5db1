//! Sanitizing untrusted text before gos shows it to an agent or a terminal.
//!
//! Everything a skill package supplies (its name, folder names, body, frontmatter) is written
//! by whoever published the package. gos renders it into an agent's context and prints it on
//! the user's terminal, so two things must never pass through:
//!
//! - **control characters** (C0 except the newline and tab of a body, DEL, C1) and the terminal
//!   escape sequences they start (CSI `ESC [ ... m`, OSC `ESC ] ... BEL` window titles and
//!   hyperlinks, DCS/APC strings): they can recolor, move the cursor, rewrite what the user
//!   sees or retitle the window;
//! - **line breaks in one-line fields** (names, paths, reasons): a name holding a newline could
//!   start a forged `## Skill:` block.
//!
//! [`inline`] is for one-line fields: it escapes every control character and every invisible
//! bidirectional or zero-width character as `\n`, `\r`, `\t` or `\u{HEX}`, so the text stays
//! readable and nothing is hidden. [`body`] is for multi-line content: it keeps newlines and
//! tabs, turns carriage returns into newlines, removes escape sequences and other control
//! characters, and shows bidirectional overrides as `\u{HEX}` (zero-width characters stay:
//! emoji sequences need the zero-width joiner; build-time warnings flag them, see
//! docs/security.md).

use std::borrow::Cow;

/// Whether `c` is a bidirectional embedding, override or isolate control (U+202A-U+202E,
/// U+2066-U+2069) or an implicit direction mark (U+200E, U+200F, U+061C): characters that
/// reorder or hide the text around them.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Whether `c` is an invisible zero-width character: U+200B-U+200D, U+2060 (word joiner),
/// U+FEFF (zero-width no-break space, the BOM).
pub fn is_zero_width(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}')
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        _ => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
    }
}

/// Whether [`inline`] escapes `c`: control characters (C0, DEL, C1), bidirectional controls
/// and zero-width characters.
fn escaped_inline(c: char) -> bool {
    c.is_control() || is_bidi_control(c) || is_zero_width(c)
}

/// A one-line field made safe to print: control characters, bidirectional controls and
/// zero-width characters escaped (`\n`, `\r`, `\t`, `\u{1b}`, `\u{202e}`, ...). Borrowed when
/// nothing needed escaping. The result holds no line break and no control character.
pub fn inline(text: &str) -> Cow<'_, str> {
    if !text.chars().any(escaped_inline) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if escaped_inline(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether `text` needs [`inline`] escaping.
pub fn needs_inline_escape(text: &str) -> bool {
    text.chars().any(escaped_inline)
}

/// Multi-line content made safe to print: `\r\n` and lone `\r` become `\n`; terminal escape
/// sequences are removed whole (CSI `ESC [` parameters and final byte; OSC `ESC ]`, DCS
/// `ESC P`, SOS `ESC X`, PM `ESC ^` and APC `ESC _` strings up to their terminator BEL or
/// `ESC \`, or to the end of the line; any other `ESC` with the character after it); every
/// other control character but `\n` and `\t` is removed; bidirectional controls are shown as
/// `\u{HEX}`. The result holds no control character but `\n` and `\t`.
pub fn body(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            '\u{1b}' => match chars.next() {
                Some('[') => {
                    // Parameters and intermediates (0x20-0x3F), then one final byte.
                    while let Some(&p) = chars.peek() {
                        if p == '\n' {
                            break;
                        }
                        chars.next();
                        if !('\u{20}'..='\u{3f}').contains(&p) {
                            break;
                        }
                    }
                }
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    while let Some(&p) = chars.peek() {
                        if p == '\n' {
                            break;
                        }
                        chars.next();
                        if p == '\u{7}' || p == '\u{9c}' {
                            break;
                        }
                        if p == '\u{1b}' {
                            if chars.peek() == Some(&'\\') {
                                chars.next();
                            }
                            break;
                        }
                    }
                }
                Some('\n') => out.push('\n'),
                _ => {}
            },
            c if c.is_control() => {}
            c if is_bidi_control(c) => push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// Whether `text` holds a character [`body`] would change (a control character other than
/// `\n` and `\t`, or a bidirectional control).
pub fn needs_body_sanitizing(text: &str) -> bool {
    text.chars()
        .any(|c| (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c))
}

/// `json` (the output of a JSON serializer) with DEL and C1 control characters inside strings
/// written as `\uXXXX` escapes. JSON serializers escape C0 but pass DEL and C1 through, and a
/// terminal may act on C1 controls; the escaped text denotes the same JSON value.
pub fn json_ascii_controls(json: &str) -> Cow<'_, str> {
    if !json.chars().any(char::is_control) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if c.is_control() {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_escapes_line_breaks_controls_and_hidden_characters() {
        assert_eq!(inline("pdf tools"), "pdf tools");
        assert!(matches!(inline("pdf"), Cow::Borrowed(_)));
        assert_eq!(
            inline("a\n## Skill: x\r\t\u{1b}[31mred\u{7f}\u{9b}"),
            "a\\n## Skill: x\\r\\t\\u{1b}[31mred\\u{7f}\\u{9b}"
        );
        assert_eq!(inline("ab\u{202e}cd\u{200b}"), "ab\\u{202e}cd\\u{200b}");
        assert!(!needs_inline_escape(&inline("x\u{1b}\n\u{85}")));
    }

    #[test]
    fn body_removes_escape_sequences_and_keeps_layout() {
        let raw = "line 1\r\nred \u{1b}[1;31mtext\u{1b}[0m\rtitle\u{1b}]0;pwned\u{7}ok\n\
                   \u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\\ttab\u{0}\u{8}\u{7f}\u{85}\u{1b}c!";
        let clean = body(raw);
        assert_eq!(clean, "line 1\nred text\ntitleok\nlink\ttab!");
        assert!(!needs_body_sanitizing(&clean));
        // An unterminated OSC string ends at the line break.
        assert_eq!(body("a\u{1b}]0;never ends\nb"), "a\nb");
        assert_eq!(body("x\u{202e}y"), "x\\u{202e}y");
        // Zero-width joiners of emoji sequences stay.
        assert_eq!(body("👩\u{200d}💻"), "👩\u{200d}💻");
    }

    #[test]
    fn json_escape_keeps_the_value() {
        let v = serde_json::json!({"name": "a\u{85}b\u{7f}\u{1b}"});
        let text = serde_json::to_string(&v).unwrap();
        let safe = json_ascii_controls(&text);
        assert!(!safe.chars().any(char::is_control));
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, v);
    }
}
