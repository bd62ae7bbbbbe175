//! Undo and redo of scenario edits, form and text alike.
//!
//! The DSL text is the whole document (it round-trips the model, and keeps text that does not
//! parse yet), so one history of texts covers both editors: a form edit re-prints the text,
//! typing changes it. Keystrokes on one line make one step; a form edit, a revert, a paste or
//! a change in the number of lines starts a new one.

/// Steps kept each way.
const LIMIT: usize = 200;
/// A text edit that changes the length by more than this is a paste or a cut, not a keystroke:
/// a step of its own, whose lines are not counted (a pasted 3.5 MB text's were ~3 ms of CPU).
const TYPED_BYTES: usize = 256;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct History {
    undo: Vec<String>,
    redo: Vec<String>,
    /// Line count after the latest keystroke while typing continues one step (`None` after a
    /// step that was not typing).
    typing_lines: Option<usize>,
}

fn lines(text: &str) -> usize {
    // A byte count, not `split`: a pasted 3.5 MB text is counted in the paste's task.
    text.bytes().filter(|&b| b == b'\n').count() + 1
}

impl History {
    /// An edit changed the text from `before` to `after`; `typing` when it came from the text box.
    pub fn record(&mut self, before: &str, after: &str, typing: bool) {
        if before == after {
            return;
        }
        let typed = typing && before.len().abs_diff(after.len()) <= TYPED_BYTES;
        let after_lines = typed.then(|| lines(after));
        let same_step = after_lines.is_some() && self.typing_lines == Some(lines(before)) && self.typing_lines == after_lines;
        if !same_step {
            self.undo.push(before.to_string());
            if self.undo.len() > LIMIT {
                self.undo.remove(0);
            }
        }
        self.redo.clear();
        self.typing_lines = after_lines;
    }

    /// The text to go back to from `current`, if any.
    pub fn undo(&mut self, current: &str) -> Option<String> {
        let previous = self.undo.pop()?;
        self.redo.push(current.to_string());
        self.typing_lines = None;
        Some(previous)
    }

    /// The text an undo left, back again.
    pub fn redo(&mut self, current: &str) -> Option<String> {
        let next = self.redo.pop()?;
        self.undo.push(current.to_string());
        self.typing_lines = None;
        Some(next)
    }

    /// A new document (a preset, file or link was loaded): nothing to undo into.
    pub fn clear(&mut self) {
        *self = History::default();
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_on_a_line_is_one_step_and_a_form_edit_another() {
        let mut h = History::default();
        h.record("a", "ab", true);
        h.record("ab", "abc", true);
        h.record("abc", "abc\nd", true);
        h.record("abc\nd", "form edit", false);
        assert_eq!(h.undo("form edit").as_deref(), Some("abc\nd"));
        assert_eq!(h.undo("abc\nd").as_deref(), Some("abc"), "a new line is a new step");
        assert_eq!(h.undo("abc").as_deref(), Some("a"), "the keystrokes on one line undo together");
        assert_eq!(h.undo("a"), None);
        assert_eq!(h.redo("a").as_deref(), Some("abc"));
        assert!(h.can_redo());
        h.record("abc", "abcX", true);
        assert!(!h.can_redo(), "a new edit drops the redo branch");
        let pasted = format!("abcX{}", "y".repeat(TYPED_BYTES + 1));
        h.record("abcX", &pasted, true);
        h.record(&pasted, &format!("{pasted}z"), true);
        assert_eq!(h.undo(&format!("{pasted}z")).as_deref(), Some(pasted.as_str()), "typing after a paste is a step of its own");
        assert_eq!(h.undo(&pasted).as_deref(), Some("abcX"), "so is the paste, on the same line");
    }

    #[test]
    fn no_change_records_nothing_and_the_history_is_bounded() {
        let mut h = History::default();
        h.record("same", "same", false);
        assert!(!h.can_undo());
        for i in 0..(LIMIT + 20) {
            h.record(&i.to_string(), &(i + 1).to_string(), false);
        }
        let mut n = 0;
        let mut current = (LIMIT + 20).to_string();
        while let Some(prev) = h.undo(&current) {
            current = prev;
            n += 1;
        }
        assert_eq!(n, LIMIT);
    }
}
