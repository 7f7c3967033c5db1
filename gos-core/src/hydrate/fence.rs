//! Code fences of markdown content: which fence is still open at the end of a text, and the
//! line that closes it.
//!
//! Fences follow CommonMark: a run of at least three backticks or tildes opens a fenced code
//! block (a backtick fence's info string holds no backtick) and a run of the same character,
//! at least as long, with nothing but spaces after it, closes it. Skill bodies nest fences in
//! list items, so an opening line may be indented by any amount; a closing line may be
//! indented by at most three spaces or as much as its opening line (what CommonMark accepts
//! inside a list item whose content starts at that opening line's indentation).

/// An open fenced code block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenFence {
    /// Leading spaces and tabs of the opening line.
    pub indent: String,
    /// `` ` `` or `~`.
    pub ch: char,
    /// Length of the opening run (at least 3).
    pub len: usize,
}

impl OpenFence {
    /// The line that closes this fence: its indentation and fence run, without a line break.
    pub fn closing_line(&self) -> String {
        let run: String = std::iter::repeat_n(self.ch, self.len).collect();
        format!("{}{run}", self.indent)
    }
}

/// Width of leading whitespace with tabs to the next multiple of 4 (CommonMark), and its byte
/// length.
fn indentation(line: &str) -> (usize, usize) {
    let mut width = 0;
    let mut bytes = 0;
    for c in line.chars() {
        match c {
            ' ' => width += 1,
            '\t' => width += 4 - width % 4,
            _ => break,
        }
        bytes += 1;
    }
    (width, bytes)
}

/// The fence run at the start of `line` after its indentation: `(indent width, indent bytes,
/// char, run length, rest of the line)`.
fn fence_run(line: &str) -> Option<(usize, usize, char, usize, &str)> {
    let (width, bytes) = indentation(line);
    let rest = &line[bytes..];
    let ch = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = rest.chars().take_while(|c| *c == ch).count();
    (len >= 3).then(|| (width, bytes, ch, len, &rest[len..]))
}

/// The fence still open after `text`, read line by line from its start; `None` when every
/// fence is closed.
pub fn open_fence_at_end(text: &str) -> Option<OpenFence> {
    let mut open: Option<(OpenFence, usize)> = None;
    for line in text.lines() {
        let Some((width, bytes, ch, len, rest)) = fence_run(line) else {
            continue;
        };
        match &open {
            None => {
                if ch == '~' || !rest.contains('`') {
                    let fence = OpenFence {
                        indent: line[..bytes].to_string(),
                        ch,
                        len,
                    };
                    open = Some((fence, width));
                }
            }
            Some((fence, open_width)) => {
                if ch == fence.ch
                    && len >= fence.len
                    && rest.trim().is_empty()
                    && width <= (*open_width).max(3)
                {
                    open = None;
                }
            }
        }
    }
    open.map(|(f, _)| f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_open_fence_and_its_closer() {
        assert_eq!(open_fence_at_end("text\n```py\nx = 1\n```\nmore"), None);
        let f = open_fence_at_end("```py\nx = 1\n").unwrap();
        assert_eq!(f.closing_line(), "```");
        // A longer run closes a shorter one; a shorter run or the other char does not.
        assert_eq!(open_fence_at_end("````\n```\n~~~\n`````"), None);
        let f = open_fence_at_end("````md\n```\n~~~\n").unwrap();
        assert_eq!(f.closing_line(), "````");
        let f = open_fence_at_end("~~~~\n```\n").unwrap();
        assert_eq!(f.closing_line(), "~~~~");
        // A backtick run with backticks after it is inline code, not a fence.
        assert_eq!(open_fence_at_end("```not a fence```\n"), None);
        // Closing lines need nothing after the run.
        assert!(open_fence_at_end("```\ncode\n``` trailing\n").is_some());
    }

    #[test]
    fn fences_in_list_items_keep_their_indentation() {
        let text = "1. step\n   ```bash\n   run\n";
        let f = open_fence_at_end(text).unwrap();
        assert_eq!(f.closing_line(), "   ```");
        assert_eq!(
            open_fence_at_end(&format!("{text}{}\n", f.closing_line())),
            None
        );
        // A closing line indented deeper than both 3 and its opener is code.
        assert!(open_fence_at_end("```\ncode\n    ```\n").is_some());
        assert_eq!(open_fence_at_end("      ```\ncode\n      ```\n"), None);
    }
}
