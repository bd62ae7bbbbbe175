//! The scenario as text: edit freely; a parse or validation error is shown at its `line:col`
//! (the line is marked in the gutter and behind the text) without touching what was typed.
//!
//! Only the lines in view (and `OVERSCAN_LINES` either side) get gutter numbers and colours:
//! a pasted 10^5-site world is 110,000 lines and ~700,000 tokens, and drawing them all was
//! most of a 20 s main-thread stall (measured with a CPU profile: DOM creation and layout,
//! not the engine). A text of `LIVE_TEXT_BYTES` or more is not put in a text box at all:
//! the browser lays out a text box's whole value (a 3.5 MB text was a 1.8 s task), so a big
//! scenario is shown read-only, the same lines in view drawn over a scroller as tall as the
//! text, with an explicit "Edit as text" that mounts the text box (and pays that layout once,
//! on the user's click).

use std::ops::Range;

use yew::prelude::*;

use crate::browser;

use crate::components::banners::message;
use blast_playground::markup::escape_into;
use blast_playground::worker::wire::TextError;

/// What a stretch of the text is, for its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    Keyword,
    Name,
    Number,
    Text,
    Comment,
    /// Spaces, braces, `=`, `.` and anything else: drawn in the plain text colour.
    Other,
}

impl Token {
    fn class(self) -> Option<&'static str> {
        match self {
            Token::Keyword => Some("tok-kw"),
            Token::Number => Some("tok-num"),
            Token::Text => Some("tok-str"),
            Token::Comment => Some("tok-comment"),
            Token::Name | Token::Other => None,
        }
    }
}

/// The DSL's words (`blast_engine::dsl`); any other word is a name.
const KEYWORDS: &[&str] = &[
    "scenario",
    "semantics",
    "snapshot",
    "live",
    "measure",
    "warmup",
    "ops",
    "class",
    "extends",
    "metaclass",
    "none",
    "stock",
    "expando",
    "custom",
    "category",
    "site",
    "setup",
    "op",
    "before-op",
    "loop",
    "every",
    "offset",
    "repeat",
    "call",
    "write",
    "use",
    "load",
    "remove",
    "replace",
    "invalidate",
    "all",
    "instance",
    "unattributed",
    "expect",
    "under",
    "relinks",
    "within",
    "published",
];

/// Splits the text into coloured stretches the way the DSL's lexer reads it (words with
/// `-` joins, numbers with `_`, `"strings"` to the line's end at worst, `#` and `//`
/// comments). Concatenated, the stretches are the text.
pub fn tokens(text: &str) -> Vec<(Token, &str)> {
    let mut out: Vec<(Token, &str)> = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        let c = bytes[i];
        let start = i;
        let kind = if c == b'#' || (c == b'/' && bytes.get(i + 1) == Some(&b'/')) {
            while i < text.len() && bytes[i] != b'\n' {
                i += 1;
            }
            Token::Comment
        } else if c == b'"' {
            i += 1;
            while i < text.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                i += 1;
            }
            if bytes.get(i) == Some(&b'"') {
                i += 1;
            }
            Token::Text
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < text.len()
                && (bytes[i].is_ascii_alphanumeric()
                    || bytes[i] == b'_'
                    || bytes[i] == b'$'
                    || (bytes[i] == b'-' && bytes.get(i + 1).is_some_and(u8::is_ascii_alphabetic)))
            {
                i += 1;
            }
            if KEYWORDS.contains(&&text[start..i]) {
                Token::Keyword
            } else {
                Token::Name
            }
        } else if c.is_ascii_digit() {
            while i < text.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'_') {
                i += 1;
            }
            Token::Number
        } else {
            // One character (whole, however many bytes it takes).
            i += text[i..].chars().next().map_or(1, char::len_utf8);
            Token::Other
        };
        match out.last_mut() {
            Some((k, prev)) if *k == kind && kind == Token::Other => *prev = &text[start - prev.len()..i],
            _ => out.push((kind, &text[start..i])),
        }
    }
    out
}

/// Lines drawn above and below the visible ones, so a quick scroll shows text, not a gap,
/// until the next render.
const OVERSCAN_LINES: usize = 30;
/// Lines assumed visible until the text box reports its height (its `rows`).
const DEFAULT_VIEW_LINES: usize = 24;
/// Characters of a line that get colours: the rest of a longer line is one plain text node,
/// so the one-line `op { … }` of a 10^5-site world is not 200,000 spans.
const COLOURED_CHARS: usize = 2_000;

/// Byte offset where each line starts (a text ending in a newline has an empty last line,
/// which the gutter numbers too).
pub fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect()
}

/// The lines to draw for a text box scrolled to `scroll_top` px showing `view_px` px, out of
/// `lines`.
pub fn drawn_lines(scroll_top: f64, view_px: f64, lines: usize) -> Range<usize> {
    let first_visible = (scroll_top.max(0.0) / LINE_PX) as usize;
    let visible = (view_px.max(0.0) / LINE_PX).ceil() as usize + 1;
    let start = first_visible.saturating_sub(OVERSCAN_LINES).min(lines);
    let end = first_visible.saturating_add(visible + OVERSCAN_LINES).min(lines);
    start..end
}

/// Line `i` of `text` without its newline.
fn line<'a>(text: &'a str, starts: &[usize], i: usize) -> &'a str {
    let end = starts.get(i + 1).map_or(text.len(), |next| next - 1);
    &text[starts[i]..end]
}

/// A line split into the part that gets colours and the plain rest (at a char boundary).
pub fn coloured_part(line: &str) -> (&str, &str) {
    match line.char_indices().nth(COLOURED_CHARS) {
        Some((at, _)) => line.split_at(at),
        None => (line, ""),
    }
}

/// The drawn lines' colours as HTML: each line's coloured part as token spans, its plain
/// rest, a newline. Made as one string and parsed by the browser in one go: built by Yew node
/// by node (a span or text node per token, ~10 DOM calls per line from wasm), the lines of a
/// freshly pasted 10^5-site world were most of a 65-75 ms task (CPU profile, load 7).
pub fn highlight_html(text: &str, starts: &[usize], drawn: Range<usize>) -> String {
    // One span around the lines: the browser's nodes are moved into the page one by one.
    let mut out = String::with_capacity(drawn.len() * 96 + 13);
    out.push_str("<span>");
    for i in drawn {
        let (coloured, plain) = coloured_part(line(text, starts, i));
        for (kind, part) in tokens(coloured) {
            match kind.class() {
                Some(class) => {
                    out.push_str("<span class=\"");
                    out.push_str(class);
                    out.push_str("\">");
                    escape_into(&mut out, part);
                    out.push_str("</span>");
                }
                None => escape_into(&mut out, part),
            }
        }
        escape_into(&mut out, plain);
        out.push('\n');
    }
    out.push_str("</span>");
    out
}

/// The gutter's numbers of the drawn lines as HTML (one `div` per line, the error line and
/// failed expectations marked), for the same reason as `highlight_html`.
pub fn gutter_html(drawn: Range<usize>, error_line: Option<usize>, failed_lines: &[usize]) -> String {
    let mut out = String::with_capacity(drawn.len() * 16);
    for n in drawn.start + 1..=drawn.end {
        let failed = failed_lines.contains(&n);
        out.push_str(match (Some(n) == error_line, failed) {
            (true, true) => "<div class=\"error-line failed-line\" title=\"this expectation fails\">",
            (true, false) => "<div class=\"error-line\">",
            (false, true) => "<div class=\"failed-line\" title=\"this expectation fails\">",
            (false, false) => "<div>",
        });
        out.push_str(&n.to_string());
        out.push_str("</div>");
    }
    out
}

/// Texts this long or longer are shown read-only until "Edit as text" (the module header).
/// Measured in e2e `scale` (Chromium traces): the text box's layout of a 1,900-deep chain
/// (45 KB) was a 120 ms forced layout, of a 10^5-site world (3.5 MB) 1.8-6 s. A preset is
/// ~1.5 KB; a hand-written scenario stays well under this.
pub const LIVE_TEXT_BYTES: usize = 32 * 1024;
/// Must match `.dsl-editor` in the stylesheet (line height and padding, px).
const LINE_PX: f64 = 20.0;
const PAD_PX: f64 = 8.0;

/// The scenario text as a prop: one shared copy per text, compared by address first. Made
/// with `AttrValue::from(text.clone())` in every render of the page, a pasted 3.5 MB text
/// was copied and then compared byte by byte with the last one (twice: the `Later` around
/// the editor compares its children) in every render, playing or not.
#[derive(Clone, Debug)]
pub struct SharedText(pub AttrValue);

impl PartialEq for SharedText {
    fn eq(&self, other: &SharedText) -> bool {
        let (a, b) = (self.0.as_str(), other.0.as_str());
        std::ptr::eq(a, b) || a == b
    }
}

#[derive(Properties, PartialEq)]
pub struct DslEditorProps {
    pub text: SharedText,
    pub error: Option<TextError>,
    pub on_input: Callback<String>,
    pub on_revert: Callback<()>,
    /// Lines of failed expectations (marked in the gutter).
    #[prop_or_default]
    pub failed_lines: Vec<usize>,
}

#[function_component(DslEditor)]
pub fn dsl_editor(p: &DslEditorProps) -> Html {
    // (top, left) of the text box's scroll and its height: the gutter, error band and colours
    // follow it.
    let scroll = use_state(|| (0.0f64, 0.0f64, DEFAULT_VIEW_LINES as f64 * LINE_PX));
    let starts = use_memo(p.text.clone(), |text| line_starts(&text.0));
    // Chosen by the user for a big text; a small text is always live.
    let editing = use_state(|| false);
    let text = p.text.0.as_str();
    let live = *editing || text.len() < LIVE_TEXT_BYTES;
    let oninput = {
        let cb = p.on_input.clone();
        Callback::from(move |e: InputEvent| cb.emit(browser::value(&e)))
    };
    let onscroll = {
        let scroll = scroll.clone();
        Callback::from(move |e: Event| scroll.set(browser::scroll_of(&e)))
    };
    // A big paste never enters the text box (its layout is the cost): the new text goes to the
    // page, which shows it read-only.
    let onpaste = {
        let cb = p.on_input.clone();
        Callback::from(move |e: Event| {
            // Not through the box (`set_range_text` lays the whole text out: a 4 s task).
            let cb = cb.clone();
            browser::take_paste(&e, LIVE_TEXT_BYTES as u32, move |text| cb.emit(text));
        })
    };
    let edit = {
        let editing = editing.clone();
        Callback::from(move |_: MouseEvent| editing.set(true))
    };
    let revert = {
        let cb = p.on_revert.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let drawn = drawn_lines(scroll.0, scroll.2, starts.len());
    // The drawn lines start this far below the box's top (scroll included).
    let drawn_top = drawn.start as f64 * LINE_PX - scroll.0;
    let error_line = p.error.as_ref().map(|e| e.line);
    html! {
        <div class="dsl-panel">
            <div class="dsl-head">
                <h3><label for={if live { "dsl-text" } else { "dsl-view" }}>{ "Scenario text (DSL)" }</label></h3>
                if !live {
                    <button id="edit-as-text" class="small" onclick={edit}
                        title="Put the whole text in a text box: the browser lays it out at once, which may pause the page for a few seconds">
                        { "Edit as text" }
                    </button>
                }
                if p.error.is_some() {
                    <button id="revert-text" class="small" onclick={revert} title="Discard the broken text and show the last valid model">{ "Revert text" }</button>
                }
            </div>
            <div class={classes!("dsl-editor", p.error.is_some().then_some("has-error"))}>
                <div class="gutter" aria-hidden="true">
                    <div class="gutter-lines" style={format!("transform: translateY({drawn_top}px)")}>
                        { Html::from_html_unchecked(AttrValue::from(gutter_html(drawn.clone(), error_line, &p.failed_lines))) }
                    </div>
                </div>
                <div class="text-wrap">
                    if let Some(line) = error_line {
                        <div class="error-band" aria-hidden="true" style={format!("top: {}px", PAD_PX + (line.max(1) - 1) as f64 * LINE_PX - scroll.0)}></div>
                    }
                    // The colours: the same text under a transparent text box, moved with its scroll.
                    <pre class="dsl-highlight" aria-hidden="true" style={format!("transform: translate({}px, {drawn_top}px)", -scroll.1)}>
                        { Html::from_html_unchecked(AttrValue::from(highlight_html(text, &starts, drawn.clone()))) }
                    </pre>
                    if live {
                        <textarea id="dsl-text" value={p.text.0.clone()} {oninput} {onscroll} {onpaste} spellcheck="false" wrap="off"
                            autocomplete="off" aria-invalid={p.error.is_some().then_some("true")}
                            aria-describedby={p.error.is_some().then_some("dsl-error")} rows="24" />
                    } else {
                        // Read-only: a scroller as tall as the text, over the lines drawn under it
                        // (as wide as the box: a line longer than that shows in full as text).
                        <div id="dsl-view" class="dsl-scroller" tabindex="0" role="region" {onscroll}
                            aria-label="Scenario text, read-only: Edit as text to change it">
                            <div class="dsl-extent" style={format!("height: {}px", starts.len() as f64 * LINE_PX)}></div>
                        </div>
                    }
                </div>
            </div>
            {
                match &p.error {
                    Some(e) => error_detail(text, e),
                    None => html! { <p class="dsl-ok hint">{ "The text parses. Edits here update the model; model edits re-print this text." }</p> },
                }
            }
        </div>
    }
}

/// The most characters of an error's line the box shows: a pasted 10 MB word is shown cut
/// around the column, not copied whole into the page.
const EXCERPT_CHARS: usize = 120;

/// The part of `line` the error box shows around the 1-based character column `col`: at most
/// [`EXCERPT_CHARS`] characters, a cut end marked `…` (the end with the line's length in
/// bytes), and the caret's 0-based position in it.
fn excerpt(line: &str, col: usize) -> (String, usize) {
    let at = col.saturating_sub(1);
    let start = at.saturating_sub(EXCERPT_CHARS / 2);
    let mut rest = line.chars().skip(start);
    let shown: String = rest.by_ref().take(EXCERPT_CHARS).collect();
    let (before, after) = (start > 0, rest.next().is_some());
    let shown_chars = shown.chars().count();
    let mut out = String::with_capacity(shown.len() + 32);
    if before {
        out.push('…');
    }
    out.push_str(&shown);
    if after {
        out.push_str(&format!("… (a line of {} bytes)", line.len()));
    }
    (out, usize::from(before) + (at - start).min(shown_chars))
}

fn error_detail(text: &str, e: &TextError) -> Html {
    let line_text = text.lines().nth(e.line.saturating_sub(1)).unwrap_or("");
    let (shown, caret_at) = excerpt(line_text, e.col);
    let caret = format!("{}^", " ".repeat(caret_at));
    html! {
        <div id="dsl-error" class="dsl-error" role="alert">
            <p><strong>{ format!("{}:{}", e.line, e.col) }</strong>{ ": " }{ message(&e.message) }</p>
            <pre class="excerpt">{ format!("{:>4} | {shown}\n     | {caret}", e.line) }</pre>
            <p class="hint">{ "Your text is kept as typed; the model, blast view and runs use the last valid version until it parses." }</p>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_errors_line_is_shown_cut_around_its_column() {
        assert_eq!(excerpt("class A { m", 11), ("class A { m".to_string(), 10), "a short line whole");
        let word = "Z".repeat(10_000_000);
        let (shown, caret) = excerpt(&word, 1);
        assert!(shown.chars().count() < EXCERPT_CHARS + 40, "{} characters shown", shown.chars().count());
        assert!(shown.ends_with("… (a line of 10000000 bytes)") && caret == 0, "{shown}");
        let line = format!("{}é{}", "a".repeat(500), "b".repeat(500));
        let (shown, caret) = excerpt(&line, 501);
        assert_eq!(shown.chars().nth(caret), Some('é'), "the caret under its character: {shown}");
        assert!(shown.starts_with('…'));
    }

    #[test]
    fn tokens_cover_the_text_and_name_what_they_are() {
        let text = "class Hot { compute } # hot\nop { loop 1_000 { call hot } }\nscenario \"é x\"\nbefore-op { }";
        let toks = tokens(text);
        assert_eq!(toks.iter().map(|(_, t)| *t).collect::<String>(), text, "nothing lost or doubled");
        let kind = |word: &str| toks.iter().find(|(_, t)| *t == word).map(|(k, _)| *k);
        assert_eq!(kind("class"), Some(Token::Keyword));
        assert_eq!(kind("Hot"), Some(Token::Name));
        assert_eq!(kind("1_000"), Some(Token::Number));
        assert_eq!(kind("# hot"), Some(Token::Comment));
        assert_eq!(kind("\"é x\""), Some(Token::Text));
        assert_eq!(kind("before-op"), Some(Token::Keyword));
        assert_eq!(tokens("\"open").len(), 1, "an unterminated string runs to the end of its line");
    }

    #[test]
    fn coloured_tokens_never_cross_a_line_so_lines_colour_alone() {
        let text = "class A { m } # note \"x\nsite s = A.m // c\n\"open\nop { }\n}\nexpect 12";
        let toks = tokens(text);
        for (kind, t) in &toks {
            assert!(kind.class().is_none() || !t.contains('\n'), "{t:?} ({kind:?}) spans lines");
        }
        // Line by line, the coloured stretches are the same as over the whole text.
        let coloured = |toks: Vec<(Token, &str)>| toks.into_iter().filter(|(k, _)| k.class().is_some()).map(|(k, t)| (k, t.to_string())).collect::<Vec<_>>();
        let by_line: Vec<_> = text.split('\n').flat_map(|l| coloured(tokens(l))).collect();
        assert_eq!(by_line, coloured(toks));
    }

    #[test]
    fn line_starts_number_every_line_the_gutter_shows() {
        assert_eq!(line_starts(""), [0]);
        assert_eq!(line_starts("a"), [0]);
        assert_eq!(line_starts("a\n"), [0, 2], "a final newline opens an empty last line");
        let text = "ab\n\ncd";
        let starts = line_starts(text);
        assert_eq!((0..starts.len()).map(|i| line(text, &starts, i)).collect::<Vec<_>>(), ["ab", "", "cd"]);
    }

    #[test]
    fn only_the_lines_in_view_and_a_margin_are_drawn() {
        // 110,000 lines (a 10^5-site world), box of 480 px scrolled to line 50,000.
        let r = drawn_lines(50_000.0 * LINE_PX, 480.0, 110_000);
        assert_eq!(r, 50_000 - OVERSCAN_LINES..50_000 + 25 + OVERSCAN_LINES);
        assert_eq!(drawn_lines(0.0, 480.0, 110_000), 0..25 + OVERSCAN_LINES);
        assert_eq!(drawn_lines(0.0, 480.0, 3), 0..3, "a short text is drawn whole");
        assert_eq!(drawn_lines(1e9, 480.0, 10), 10..10, "scrolled past the end (text just shrank): nothing, no panic");
        assert_eq!(drawn_lines(-5.0, f64::NAN, 10), 0..10.min(1 + OVERSCAN_LINES));
    }

    /// The text of an HTML fragment made here: tags dropped, entities read back.
    fn text_of(html: &str) -> String {
        let mut out = String::new();
        let mut rest = html;
        while let Some(at) = rest.find('<') {
            out.push_str(&rest[..at]);
            rest = &rest[rest[at..].find('>').map_or(rest.len(), |end| at + end + 1)..];
        }
        out.push_str(rest);
        out.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
    }

    #[test]
    fn the_drawn_lines_as_html_read_back_as_the_text_with_its_colours() {
        let text = "class A { m } # <b>&\"x\"'y'</b>\nsite s = A.m\n\nop { loop 1_000 { call s } }";
        let starts = line_starts(text);
        let all = highlight_html(text, &starts, 0..starts.len());
        assert_eq!(text_of(&all), format!("{text}\n"), "every drawn line, each ending in a newline");
        assert!(all.contains("<span class=\"tok-kw\">class</span>") && all.contains("<span class=\"tok-num\">1_000</span>"), "{all}");
        assert!(!all.contains("<b>"), "the text's markup is escaped: {all}");
        assert_eq!(text_of(&highlight_html(text, &starts, 1..3)), "site s = A.m\n\n", "only the drawn lines");
        assert_eq!(text_of(&highlight_html(text, &starts, 4..4)), "");
    }

    #[test]
    fn the_gutter_numbers_the_drawn_lines_and_marks_errors_and_failures() {
        let html = gutter_html(9..13, Some(11), &[12, 11]);
        assert_eq!(
            html,
            "<div>10</div><div class=\"error-line failed-line\" title=\"this expectation fails\">11</div>\
             <div class=\"failed-line\" title=\"this expectation fails\">12</div><div>13</div>"
        );
        assert_eq!(gutter_html(0..0, None, &[]), "");
    }

    #[test]
    fn a_long_line_is_coloured_up_to_the_cap_then_plain() {
        let long = "é".repeat(COLOURED_CHARS + 5);
        let (coloured, plain) = coloured_part(&long);
        assert_eq!((coloured.chars().count(), plain.chars().count()), (COLOURED_CHARS, 5));
        assert_eq!(coloured_part("call s"), ("call s", ""));
    }
}
