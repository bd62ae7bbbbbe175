//! The scenario as text: edit freely; a parse or validation error is shown at its `line:col`
//! (the line is marked in the gutter and behind the text) without touching what was typed.

use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use crate::components::banners::message;
use crate::state::TextError;

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

fn highlighted(text: &str) -> Html {
    html! {
        { for tokens(text).into_iter().map(|(kind, part)| match kind.class() {
            Some(class) => html! { <span {class}>{ part }</span> },
            None => html! { part },
        }) }
    }
}

/// Must match `.dsl-editor` in the stylesheet (line height and padding, px).
const LINE_PX: f64 = 20.0;
const PAD_PX: f64 = 8.0;

#[derive(Properties, PartialEq)]
pub struct DslEditorProps {
    pub text: AttrValue,
    pub error: Option<TextError>,
    pub on_input: Callback<String>,
    pub on_revert: Callback<()>,
    /// Lines of failed expectations (marked in the gutter).
    #[prop_or_default]
    pub failed_lines: Vec<usize>,
}

#[function_component(DslEditor)]
pub fn dsl_editor(p: &DslEditorProps) -> Html {
    // (top, left) of the text box's scroll: the gutter, error band and colours follow it.
    let scroll = use_state(|| (0.0f64, 0.0f64));
    let oninput = {
        let cb = p.on_input.clone();
        Callback::from(move |e: InputEvent| cb.emit(e.target_unchecked_into::<HtmlTextAreaElement>().value()))
    };
    let onscroll = {
        let scroll = scroll.clone();
        Callback::from(move |e: Event| {
            let area = e.target_unchecked_into::<HtmlTextAreaElement>();
            scroll.set((f64::from(area.scroll_top()), f64::from(area.scroll_left())))
        })
    };
    let revert = {
        let cb = p.on_revert.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let lines = p.text.lines().count().max(1) + usize::from(p.text.ends_with('\n'));
    let error_line = p.error.as_ref().map(|e| e.line);
    html! {
        <div class="dsl-panel">
            <div class="dsl-head">
                <h3><label for="dsl-text">{ "Scenario text (DSL)" }</label></h3>
                if p.error.is_some() {
                    <button id="revert-text" class="small" onclick={revert} title="Discard the broken text and show the last valid model">{ "Revert text" }</button>
                }
            </div>
            <div class={classes!("dsl-editor", p.error.is_some().then_some("has-error"))}>
                <div class="gutter" aria-hidden="true">
                    <div class="gutter-lines" style={format!("transform: translateY({}px)", -scroll.0)}>
                        { for (1..=lines).map(|n| {
                            let failed = p.failed_lines.contains(&n);
                            html! { <div class={classes!((Some(n) == error_line).then_some("error-line"), failed.then_some("failed-line"))}
                                title={failed.then_some("this expectation fails")}>{ n }</div> }
                        }) }
                    </div>
                </div>
                <div class="text-wrap">
                    if let Some(line) = error_line {
                        <div class="error-band" aria-hidden="true" style={format!("top: {}px", PAD_PX + (line.max(1) - 1) as f64 * LINE_PX - scroll.0)}></div>
                    }
                    // The colours: the same text under a transparent text box, moved with its scroll.
                    <pre class="dsl-highlight" aria-hidden="true" style={format!("transform: translate({}px, {}px)", -scroll.1, -scroll.0)}>
                        { highlighted(&p.text) }{ "\n" }
                    </pre>
                    <textarea id="dsl-text" value={p.text.clone()} {oninput} {onscroll} spellcheck="false" wrap="off"
                        autocomplete="off" aria-invalid={p.error.is_some().then_some("true")}
                        aria-describedby={p.error.is_some().then_some("dsl-error")} rows="24" />
                </div>
            </div>
            {
                match &p.error {
                    Some(e) => error_detail(&p.text, e),
                    None => html! { <p class="dsl-ok hint">{ "The text parses. Edits here update the model; model edits re-print this text." }</p> },
                }
            }
        </div>
    }
}

fn error_detail(text: &str, e: &TextError) -> Html {
    let line_text = text.lines().nth(e.line.saturating_sub(1)).unwrap_or("");
    let caret = format!("{}^", " ".repeat(e.col.saturating_sub(1).min(line_text.chars().count())));
    html! {
        <div id="dsl-error" class="dsl-error" role="alert">
            <p><strong>{ format!("{}:{}", e.line, e.col) }</strong>{ ": " }{ message(&e.message) }</p>
            <pre class="excerpt">{ format!("{:>4} | {line_text}\n     | {caret}", e.line) }</pre>
            <p class="hint">{ "Your text is kept as typed; the model, blast view and runs use the last valid version until it parses." }</p>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
