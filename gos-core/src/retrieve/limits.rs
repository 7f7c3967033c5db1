//! Caps on what one query may cost: its length, and the passages embedded with
//! `--query-chunks`. Without them one long task text made the encoder run on every paragraph
//! in one batch (100 bullet lines: 33 s and 2 GB; 20,000 lines: killed for memory).
//!
//! Both caps sit far above real tasks (the longest of the SkillsBench DEV tasks has 3,667
//! characters and about 15 passages), so real queries are never cut. When a cap applies, the
//! retrieval says so in [`super::Retrieval::limits_applied`].

use crate::index::dense::query_passages;

/// Most characters of a query that retrieval reads; the rest is ignored (and the retrieval
/// says so). About five times the longest real task text.
pub const MAX_QUERY_CHARS: usize = 20_000;

/// Most passages embedded besides the whole text when query passages are on; later passages
/// are dropped (and the retrieval says so). Twice what the longest real task yields.
pub const MAX_QUERY_PASSAGES: usize = 32;

/// `text` cut to [`MAX_QUERY_CHARS`] characters, with a note when it was cut.
pub fn cap_query(text: &str) -> (&str, Option<String>) {
    match text.char_indices().nth(MAX_QUERY_CHARS) {
        None => (text, None),
        Some((end, _)) => {
            let total = text.chars().count();
            let note = format!(
                "query cut to its first {MAX_QUERY_CHARS} of {total} characters (limit MAX_QUERY_CHARS)"
            );
            (&text[..end], Some(note))
        }
    }
}

/// The passages of `text` ([`query_passages`]), at most [`MAX_QUERY_PASSAGES`], with a note
/// when some were dropped.
pub fn capped_passages(text: &str) -> (Vec<String>, Option<String>) {
    let mut passages = query_passages(text);
    if passages.len() <= MAX_QUERY_PASSAGES {
        return (passages, None);
    }
    let note = format!(
        "embedded the first {MAX_QUERY_PASSAGES} of {} query passages (limit MAX_QUERY_PASSAGES)",
        passages.len()
    );
    passages.truncate(MAX_QUERY_PASSAGES);
    (passages, Some(note))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_queries_are_cut_and_short_ones_kept() {
        let short = "convert the pdf tables to csv";
        assert_eq!(cap_query(short), (short, None));
        let long = "é".repeat(MAX_QUERY_CHARS + 5);
        let (cut, note) = cap_query(&long);
        assert_eq!(cut.chars().count(), MAX_QUERY_CHARS);
        assert!(
            note.unwrap()
                .contains(&format!("of {} characters", MAX_QUERY_CHARS + 5))
        );
        let exact = "a".repeat(MAX_QUERY_CHARS);
        assert_eq!(cap_query(&exact).1, None);
    }

    #[test]
    fn passages_are_capped_with_a_note() {
        let bullets: String = (0..200)
            .map(|i| format!("- step {i}: transform the input records into the report format\n"))
            .collect();
        let all = query_passages(&bullets).len();
        assert!(all > MAX_QUERY_PASSAGES, "{all}");
        let (kept, note) = capped_passages(&bullets);
        assert_eq!(kept.len(), MAX_QUERY_PASSAGES);
        assert_eq!(kept[..], query_passages(&bullets)[..MAX_QUERY_PASSAGES]);
        assert!(note.unwrap().contains(&format!("of {all} query passages")));
        let (few, none) = capped_passages("First paragraph of the task.\n\nSecond paragraph here.");
        assert_eq!((few.len(), none), (2, None));
    }
}
