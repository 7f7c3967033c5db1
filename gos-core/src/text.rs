//! Small text utilities: clipping by characters and at line boundaries. Counts are in Unicode
//! scalar values (`char`s); nothing here splits a character.

/// Clip `text` to at most `max_chars` characters at a line boundary; when even the first line
/// is longer, clip at a character boundary. Returns the clipped text (never longer than
/// `max_chars` characters).
pub fn clip_at_line(text: &str, max_chars: usize) -> &str {
    if text.chars().count() <= max_chars {
        return text;
    }
    let byte_end = text
        .char_indices()
        .nth(max_chars)
        .map(|(b, _)| b)
        .unwrap_or(text.len());
    let head = &text[..byte_end];
    match head.rfind('\n') {
        Some(nl) if nl > 0 => &text[..nl],
        _ => head,
    }
}

/// The first `max_chars` characters (Unicode scalar values) of `text`; all of it when it is
/// shorter. Never splits a character.
pub fn truncate_chars(text: &str, max_chars: usize) -> &str {
    match text.char_indices().nth(max_chars) {
        Some((byte, _)) => &text[..byte],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_prefers_line_boundaries() {
        assert_eq!(clip_at_line("abc\ndef\nghi", 9), "abc\ndef");
        assert_eq!(clip_at_line("abcdef", 4), "abcd");
        assert_eq!(clip_at_line("short", 10), "short");
        assert_eq!(clip_at_line("é\néé", 3), "é");
    }
}
