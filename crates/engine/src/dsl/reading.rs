//! Scenario text read a piece at a time, as the CLI reads a file. The parser checks what has
//! arrived so far, counting declarations and statements without keeping them, and a text it
//! refuses is refused as soon as the text so far decides the refusal, holding only the text
//! since the start of the last top-level declaration it began: a refusal past a cap near the
//! end of a 64 MB file costs that declaration, not the file.
//!
//! A head decides a refusal when the parse of it refused without reaching its end; the parse
//! of any text that starts with it then refuses the same way at the same place, as `parse`
//! reads the text in order with two tokens of lookahead. What no head decides (a text that
//! parses, and validation, which needs all of it) is left to `parse_any` of the whole text.

use super::{Counts, Lexer, Mark, Parser, Places, MAX_INPUT};
use crate::validate::ScenarioError;

/// Bytes that arrive before the first check, and at least between two checks: checking again
/// only when the undecided text has doubled keeps the work linear in the text.
const CHECK_EVERY: usize = 64 * 1024;

/// The check of one scenario text as it is read ([`Reading::feed`] each piece in order).
#[derive(Debug)]
pub struct Reading {
    /// The text from the start of the last top-level declaration the parse began (all of it
    /// while the text might be JSON).
    window: String,
    /// Where `window` starts in the text (its line and column), and what was counted before it.
    from: Mark,
    counted: Counts,
    /// Bytes of the text before `window`.
    dropped: usize,
    form: Form,
    /// The length of `window` at which it is checked next, and the least it grows by between
    /// two checks ([`CHECK_EVERY`]).
    next_check: usize,
    every: usize,
}

#[derive(Debug, PartialEq)]
enum Form {
    /// Nothing but white space yet.
    Unknown,
    Dsl,
    /// JSON (a `{` first, as `parse_any` tells), or a text longer than any parse reads: not
    /// checked here.
    Unchecked,
}

impl Default for Reading {
    fn default() -> Reading {
        Reading::new()
    }
}

impl Reading {
    pub fn new() -> Reading {
        Reading::checking_every(CHECK_EVERY)
    }

    /// A reading checked when at least `every` bytes arrived since the last check (and the
    /// undecided text doubled); [`Reading::new`] checks every 64 KiB.
    pub fn checking_every(every: usize) -> Reading {
        Reading {
            window: String::new(),
            from: Mark { i: 0, line: 1, col: 1 },
            counted: Counts::default(),
            dropped: 0,
            form: Form::Unknown,
            next_check: every,
            every,
        }
    }

    /// Read the next piece of the text: the refusal `parse` gives every text that starts with
    /// the pieces read so far, when they decide one.
    pub fn feed(&mut self, piece: &str) -> Result<(), ScenarioError> {
        if self.form == Form::Unchecked {
            return Ok(());
        }
        if self.dropped + self.window.len() + piece.len() > MAX_INPUT {
            // `parse` refuses it by its length.
            *self = Reading { form: Form::Unchecked, ..Reading::new() };
            return Ok(());
        }
        self.window.push_str(piece);
        if self.form == Form::Unknown {
            let text = self.window.strip_prefix('\u{feff}').unwrap_or(&self.window).trim_start();
            if text.is_empty() {
                return Ok(());
            }
            self.form = if text.starts_with('{') { Form::Unchecked } else { Form::Dsl };
            if self.form == Form::Unchecked {
                self.window = String::new();
                return Ok(());
            }
        }
        if self.window.len() < self.next_check {
            return Ok(());
        }
        self.check(false)
    }

    /// Whether no piece to come can change the answer: the text is JSON (which
    /// `json::counting` checks instead), or longer than any parse reads.
    pub fn settled(&self) -> bool {
        self.form == Form::Unchecked
    }

    /// The text ended: the refusal `parse` gives it, when its parse refuses it (what only
    /// validation refuses is left to `parse_any`). The rest of the text is parsed counting, so
    /// a cap refused in the last piece is not built up to first.
    pub fn finish(&mut self) -> Result<(), ScenarioError> {
        match self.form {
            Form::Dsl => self.check(true),
            Form::Unknown | Form::Unchecked => Ok(()),
        }
    }

    /// Parse the window as far as it decides (all of it at the `end` of the text), and keep
    /// only what the next check reads again.
    fn check(&mut self, end: bool) -> Result<(), ScenarioError> {
        // The head up to its last ASCII space, tab or line feed reads as the same tokens as the
        // whole text: no token holds one but a string, which a partial lexer takes for the end.
        let cut = if end { self.window.len() } else { self.window.rfind([' ', '\t', '\n']).map_or(0, |k| k + 1) };
        // `parse_any` takes a byte-order mark off the text before `parse` (which takes one more).
        let bom = if self.dropped == 0 && self.window.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
        let head = &self.window[bom..cut.max(bom)];
        let mut lexer = if self.dropped == 0 { Lexer::new(head)? } else { Lexer::at(head, self.from) };
        lexer.partial = !end;
        // An error before the parse reads the end of the head is the whole text's.
        let mut p = Parser::over(lexer, self.counted, Places::None, false)?;
        let parsed = p.scenario();
        if !p.lexer.short {
            parsed?;
        }
        let (top, counted) = p.top;
        // Nothing read past the start: kept as it is, read again from the start.
        let read = if top.i == 0 { 0 } else { bom + top.i };
        self.window.drain(..read);
        self.dropped += read;
        (self.from, self.counted) = (Mark { i: 0, ..top }, counted);
        self.next_check = (2 * self.window.len()).max(self.window.len() + self.every);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsl;

    /// `text` fed `step` bytes at a time (cut on character boundaries), checked after each
    /// piece and at its end: the first refusal.
    fn fed(text: &str, step: usize) -> Result<(), ScenarioError> {
        let mut r = Reading::checking_every(1);
        let mut rest = text;
        while !rest.is_empty() {
            let mut n = step.min(rest.len());
            while !rest.is_char_boundary(n) {
                n += 1;
            }
            r.feed(&rest[..n])?;
            rest = &rest[n..];
        }
        r.finish()
    }

    #[test]
    fn a_refusal_decided_by_the_text_so_far_is_the_refusal_of_the_whole_text() {
        // Each text, and whether its reading refuses it (not what only validation refuses, nor
        // JSON).
        let texts = [
            ("class A { m }\n# a comment with \"quotes\n\nscenario \"a name with spaces\"\nclass B @ { m }\nop { }\n", true),
            ("\u{feff}class A { m } site s = A.m op { loop 1 { call s } } op { }\n", true),
            ("class A { m }\nop {\n  loop 2 { every 0 { write A.m } }\n  zap\n}\nsite s = A.m\n", true),
            ("class A { m }\nscenario \"not closed\nop { }\n", true),
            ("class A { m }\nsite s = A.m, B.n\nop { }\n", true),
            ("\u{feff}\u{feff}class A\nclass B @\nop { }\n", true),
            ("\u{feff}\u{feff}\u{feff}class A\nop { }\n", true),
            ("class A { m }\nsite s = A.m\nop { loop 1 { call s } }\n", false),
            ("class A { m }\nclass A { m }\nsite s = A.m\nop { loop 1 { call s } }\n", false),
            ("class A extends\n", true),
            ("class A { m }\nop { write A.m\n", true),
            ("  {\"classes\": [] @ }", false),
        ];
        for (text, decided) in texts {
            let whole = dsl::parse_any(text).err().map(|e| e.to_string());
            for step in 1..=text.len() {
                match fed(text, step) {
                    Err(e) => assert_eq!(Some(e.to_string()), whole, "{text:?} fed {step} bytes at a time"),
                    Ok(()) => assert!(!decided, "{text:?} fed {step} bytes at a time: not refused ({whole:?})"),
                }
            }
        }
    }
}
