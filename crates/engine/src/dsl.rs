//! The scenario text format: a small, readable language with the same model as the JSON.
//!
//! ```text
//! semantics snapshot
//! measure warmup 3 ops 5
//! class Hot { compute }
//! class Child extends Parent { leaf }
//! category HotCategory { Hot.compute }
//! site hot = Hot.compute
//! site shapes = Circle.area, Square.area, Tri.area mix 60/30/10
//! setup { remove Hot }
//! before-op { remove Unrelated }
//! op {
//!   loop 100000 {
//!     every 1000 { write Unrelated.dyn0 }
//!     call hot
//!   }
//! }
//! ```
//! Parse errors and validation errors carry `line:col`. `print` is the inverse of `parse` for
//! every valid scenario (modulo comments and layout).

use crate::fxhash::FxMap;
use std::fmt::Write as _;

use crate::digits::thousands;
use crate::scenario::*;
use crate::validate::{
    excerpt, validate, Location, ScenarioError, EXCERPT_CHARS, MAX_CALLS, MAX_CLASSES, MAX_EVENTS, MAX_METHODS, MAX_NESTING, MAX_POLY_RECEIVERS, MAX_RECEIVERS,
    MAX_SITES,
};

// The `expect` lines: their parser extends `Parser` from a file of the expectations module.
#[path = "expect/syntax.rs"]
mod expect_syntax;
use expect_syntax::EXPECT_SYMBOLS;

mod reading;
pub use reading::Reading;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok<'a> {
    /// A word of the text, borrowed: a million-site text has millions, and a `String` each
    /// was a third of the parse's allocations.
    Ident(&'a str),
    Num(u64),
    /// A number with a decimal point (`1.5`), as written (`_` separators included); only
    /// expectations take one.
    Dec(&'a str),
    Str(&'a str),
    Sym(char),
    Eof,
}

/// 32 bytes: a big text has about one token per 5 bytes, all held at once.
#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    tok: Tok<'a>,
    line: u32,
    col: u32,
}

/// The largest scenario text (DSL or JSON) read, in bytes; the CLI reads no more of a file.
pub const MAX_INPUT: usize = 64_000_000;

/// Reads the text one token at a time, as the parser asks for them: nothing is held for the
/// tokens already read, so a refusal early in a large text costs nothing for the rest of it.
struct Lexer<'a> {
    src: &'a str,
    i: usize,
    line: usize,
    col: usize,
    /// Where the last token returned starts (the end of the text for `Eof`).
    start: Mark,
    /// `src` is the head of a longer text ([`reading`]): its end is not the text's end.
    partial: bool,
    /// A partial text's end was reached: what the parser did after is not decided by the head.
    short: bool,
}

/// A place in the text: its byte offset, line and column.
#[derive(Clone, Copy, Debug, Default)]
struct Mark {
    i: usize,
    line: usize,
    col: usize,
}

impl<'a> Lexer<'a> {
    fn new(src: &'a str) -> Result<Lexer<'a>, ScenarioError> {
        if src.len() > MAX_INPUT {
            return Err(ScenarioError::at_text(1, 1, format!("scenario text is {} bytes; at most {MAX_INPUT}", src.len())));
        }
        // A UTF-8 byte-order mark is not part of the text (editors on Windows write one).
        let i = if src.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
        Ok(Lexer::at(src, Mark { i, line: 1, col: 1 }))
    }

    /// A lexer over `src` from `at`, with no length check and no byte-order mark skipped.
    fn at(src: &'a str, at: Mark) -> Lexer<'a> {
        Lexer { src, i: at.i, line: at.line, col: at.col, start: at, partial: false, short: false }
    }

    /// The next token, noting where it starts.
    fn token(&mut self) -> Result<Token<'a>, ScenarioError> {
        let (t, start) = self.scan()?;
        self.start = start;
        self.short |= self.partial && t.tok == Tok::Eof;
        Ok(t)
    }

    /// The next token and where it starts; `Eof` at the end, as often as asked, starting at the
    /// last space or comment skipped before it (a lexer started there reads the rest the same
    /// way, and a comment cut by the end of a partial text is read again whole).
    fn scan(&mut self) -> Result<(Token<'a>, Mark), ScenarioError> {
        let mut from = Mark { i: self.i, line: self.line, col: self.col };
        // Bytes, not chars: every token is ASCII, so only whitespace and string contents outside
        // ASCII are decoded (columns count chars, as an editor does).
        let (src, bytes) = (self.src, self.src.as_bytes());
        let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
        while self.i < bytes.len() {
            let (i, b) = (self.i, bytes[self.i]);
            let (tl, tc) = (self.line, self.col);
            from = Mark { i, line: tl, col: tc };
            // Both fit: the text is at most `MAX_INPUT` bytes.
            let at = |tok| (Token { tok, line: tl as u32, col: tc as u32 }, Mark { i, line: tl, col: tc });
            if b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')) {
                // A lone CR (old Mac line ends) breaks a line too; CR LF counts once, at the LF.
                self.i += 1;
                self.line += 1;
                self.col = 1;
            } else if b.is_ascii_whitespace() || b == b';' || b == 0x0b {
                self.i += 1;
                self.col += 1;
            } else if b == b'#' || (b == b'/' && bytes.get(i + 1) == Some(&b'/')) {
                let end = bytes[i..].iter().position(|&c| c == b'\n' || c == b'\r').map_or(bytes.len(), |n| i + n);
                self.col += src[i..end].chars().count();
                self.i = end;
            } else if b.is_ascii_alphabetic() || b == b'_' {
                let mut j = i;
                // `-` joins words of a keyword (`before-op`); names reject it in validation.
                while j < bytes.len() && (is_word(bytes[j]) || (bytes[j] == b'-' && bytes.get(j + 1).is_some_and(|c| c.is_ascii_alphabetic()))) {
                    j += 1;
                }
                self.col += j - i;
                self.i = j;
                return Ok(at(Tok::Ident(&src[i..j])));
            } else if b.is_ascii_digit() {
                let mut j = i;
                while j < bytes.len() && (bytes[j].is_ascii_digit() || bytes[j] == b'_') {
                    j += 1;
                }
                if bytes.get(j) == Some(&b'.') && bytes.get(j + 1).is_some_and(|c| c.is_ascii_digit()) {
                    j += 1;
                    while j < bytes.len() && bytes[j].is_ascii_digit() {
                        j += 1;
                    }
                    self.col += j - i;
                    self.i = j;
                    return Ok(at(Tok::Dec(&src[i..j])));
                }
                self.col += j - i;
                self.i = j;
                let n = bytes[i..j].iter().filter(|&&c| c != b'_').try_fold(0u64, |n, &c| n.checked_mul(10)?.checked_add(u64::from(c - b'0')));
                let n = n.ok_or_else(|| ScenarioError::at_text(tl, tc, format!("number {} is too large", excerpt(&src[i..j]))))?;
                return Ok(at(Tok::Num(n)));
            } else if b == b'"' {
                let rest = &src[i + 1..];
                let Some(len) = rest.find(['"', '\n', '\r']).filter(|&n| rest.as_bytes()[n] == b'"') else {
                    if self.partial && !rest.contains(['"', '\n', '\r']) {
                        // Closed, or not, past the end of the head: the end of the head.
                        self.i = bytes.len();
                        return Ok((Token { tok: Tok::Eof, line: tl as u32, col: tc as u32 }, from));
                    }
                    return Err(ScenarioError::at_text(tl, tc, "a string (`\"`) is not closed on its line"));
                };
                let text = &rest[..len];
                self.col += 2 + text.chars().count();
                self.i += len + 2;
                return Ok(at(Tok::Str(text)));
            } else if b"{}=.".contains(&b) || EXPECT_SYMBOLS.as_bytes().contains(&b) {
                self.i += 1;
                self.col += 1;
                return Ok(at(Tok::Sym(char::from(b))));
            } else {
                let c = src[i..].chars().next().expect("i is on a char boundary");
                if !c.is_whitespace() {
                    return Err(ScenarioError::at_text(tl, tc, format!("unexpected character {}", shown_char(c))));
                }
                self.i += c.len_utf8();
                self.col += 1;
            }
        }
        Ok((Token { tok: Tok::Eof, line: self.line as u32, col: self.col as u32 }, from))
    }
}

/// A character as an error shows it: itself between backquotes when it is visible, escaped
/// (`\0`, `\u{feff}`) when it is a control or invisible character a reader could not see.
fn shown_char(c: char) -> String {
    let invisible = c.is_control()
        || c.is_whitespace()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}' | '\u{ad}');
    match c {
        '\0' => "`\\0` (a NUL byte)".into(),
        c if invisible => format!("`\\u{{{:x}}}` (an invisible character)", u32::from(c)),
        c => format!("`{c}`"),
    }
}

struct Parser<'a> {
    lexer: Lexer<'a>,
    /// The current token and the one after it (the only lookahead the grammar needs).
    cur: Token<'a>,
    after: Token<'a>,
    /// Where `cur` and `after` start.
    cur_at: Mark,
    after_at: Mark,
    /// How many blocks enclose the statement being read (0 in `op { .. }` itself).
    depth: usize,
    /// What was read so far, counted as it is read.
    n: Counts,
    /// Whether the declarations and statements read are kept in the model; a parse that only
    /// checks ([`reading`]) counts them and drops them.
    keep: bool,
    /// The place of the last top-level declaration begun, and the counts before it, when
    /// what was read before it did not depend on the end of a partial text.
    top: (Mark, Counts),
    /// Where each model path came from, for locating validation errors; `None` when the parse
    /// does not record places (the first, fast pass of [`parse`]).
    spans: Option<Spans>,
    /// Which of them are kept: a map of every path was 55 MB at 10^5 classes.
    places: Places,
}

/// What a parse counted so far: the caps are checked against these, so a text past a cap is
/// refused at its first declaration over it; a parse resumed at a top-level declaration
/// ([`reading`]) starts from them.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    classes: usize,
    sites: usize,
    expectations: usize,
    /// Statements read so far in all blocks, and receivers of polymorphic sites.
    events: usize,
    calls: usize,
    receivers: usize,
    /// Sites named by the expectations' lists.
    listed: usize,
    seen_op: bool,
}

/// Which places a parse records.
enum Places {
    None,
    All,
    /// The places of this model path and of its ancestors (the second pass of [`parse`], which
    /// places one error).
    Of(String),
    /// That path's place was found: the parse can stop at the next top-level declaration.
    Found,
    /// The places of the paths that start with this (`expectations[`: [`expectation_places`]).
    Under(&'static str),
}

type PResult<T> = Result<T, ScenarioError>;

fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => excerpt(s),
        Tok::Num(n) => format!("number {n}"),
        Tok::Dec(d) => format!("number {}", excerpt(&d.replace('_', ""))),
        Tok::Str(s) => match s.char_indices().nth(EXCERPT_CHARS) {
            None => format!("string \"{s}\""),
            Some((cut, _)) => format!("string \"{}...\" ({} characters)", &s[..cut], s.chars().count()),
        },
        Tok::Sym(c) => format!("`{c}`"),
        Tok::Eof => "end of input".into(),
    }
}

impl<'a> Parser<'a> {
    fn new(src: &'a str, places: Places) -> PResult<Parser<'a>> {
        Parser::over(Lexer::new(src)?, Counts::default(), places, true)
    }
    /// A parse of what `lexer` reads, with `n` already counted.
    fn over(mut lexer: Lexer<'a>, n: Counts, places: Places, keep: bool) -> PResult<Parser<'a>> {
        let cur = lexer.token()?;
        let cur_at = lexer.start;
        let after = lexer.token()?;
        let after_at = lexer.start;
        let spans = (!matches!(places, Places::None)).then(Spans::default);
        Ok(Parser { lexer, cur, after, cur_at, after_at, depth: 0, n, keep, top: (cur_at, n), spans, places })
    }
    fn peek(&self) -> &Token<'a> {
        &self.cur
    }
    /// The token after the current one.
    fn peek_after(&self) -> &Token<'a> {
        &self.after
    }
    /// The current token; the end of input stays where it is. A character the lexer refuses
    /// is reported here, two tokens before the parser would reach it.
    fn next(&mut self) -> PResult<Token<'a>> {
        let t = self.cur;
        if t.tok != Tok::Eof {
            (self.cur, self.cur_at) = (self.after, self.after_at);
            self.after = self.lexer.token()?;
            self.after_at = self.lexer.start;
        }
        Ok(t)
    }
    /// An error inside the braces opened at `open`, where `what` was expected. When the text
    /// ends first, or a declaration word (`declaration`) was met inside them, the likelier
    /// mistake is a missing `}`: the error names the `{`, at its place.
    fn unclosed<T>(&self, open: &Token, declaration: Option<&Token>, what: &str) -> PResult<T> {
        let here = self.peek();
        let at = |t: &Token| format!("{}:{}", t.line, t.col);
        let opened = format!("the `{{` opened at {} is not closed", at(open));
        match (declaration, &here.tok) {
            (_, Tok::Eof) => self.error(open, format!("{opened}: the text ends first")),
            (Some(d), _) if d.line == here.line && d.col == here.col => {
                self.error(open, format!("{opened}: {} at {} starts a declaration", describe(&d.tok), at(d)))
            }
            (Some(d), found) => self.error(
                open,
                format!("{opened}: {} at {} was read as part of the block, then {} at {} does not fit", describe(&d.tok), at(d), describe(found), at(here)),
            ),
            (None, found) => self.error(here, format!("expected {what}, found {}", describe(found))),
        }
    }
    /// Refuse the declaration at `t` when `count` of its kind were read already.
    fn cap(&self, t: &Token, count: usize, max: usize, what: &str) -> PResult<()> {
        if count < max {
            return Ok(());
        }
        self.error(t, cap_refusal(max, what, count + 1))
    }
    /// Add `item` to `list` when this parse keeps what it reads (built only then).
    fn keep<T>(&self, list: &mut Vec<T>, item: impl FnOnce() -> T) {
        if self.keep {
            list.push(item());
        }
    }
    fn error<T>(&self, t: &Token, msg: impl Into<String>) -> PResult<T> {
        Err(ScenarioError::at_text(t.line as usize, t.col as usize, msg))
    }
    /// Record where the model path `path()` starts, when this parse records places.
    fn mark(&mut self, path: impl FnOnce() -> String, t: &Token) {
        if let Some(spans) = &mut self.spans {
            let path = path();
            // A loaded class's own paths (`.load`, `.load.parent`) stand for the event's
            // (`.class`, `.parent`): kept when the event is wanted.
            let stem = path.strip_suffix(".load.parent").or_else(|| path.strip_suffix(".load")).unwrap_or(&path);
            let keep = match &self.places {
                Places::None | Places::All => true,
                Places::Of(only) => only.starts_with(stem),
                Places::Under(prefix) => path.starts_with(prefix),
                Places::Found => false,
            };
            if matches!(&self.places, Places::Of(only) if *only == path) {
                self.places = Places::Found;
            }
            if keep {
                spans.insert(path, (t.line as usize, t.col as usize));
            }
        }
    }
    /// A model path for nested marks: built only when this parse records places.
    fn sub(&self, path: impl FnOnce() -> String) -> String {
        if self.spans.is_some() {
            path()
        } else {
            String::new()
        }
    }
    fn ident(&mut self, what: &str) -> PResult<(&'a str, Token<'a>)> {
        let mut t = self.next()?;
        match std::mem::replace(&mut t.tok, Tok::Eof) {
            Tok::Ident(s) => Ok((s, t)),
            other => self.error(&t, format!("expected {what}, found {}", describe(&other))),
        }
    }
    fn num(&mut self, what: &str) -> PResult<(u64, Token<'a>)> {
        let t = self.next()?;
        match t.tok {
            Tok::Num(n) => Ok((n, t)),
            ref other => self.error(&t, format!("expected {what}, found {}", describe(other))),
        }
    }
    fn sym(&mut self, c: char) -> PResult<Token<'a>> {
        let t = self.next()?;
        if t.tok == Tok::Sym(c) {
            Ok(t)
        } else {
            self.error(&t, format!("expected `{c}`, found {}", describe(&t.tok)))
        }
    }
    fn keyword(&mut self, kw: &str) -> PResult<Token<'a>> {
        let t = self.next()?;
        match &t.tok {
            Tok::Ident(s) if *s == kw => Ok(t),
            other => self.error(&t, format!("expected `{kw}`, found {}", describe(other))),
        }
    }
    fn at_sym(&self, c: char) -> bool {
        self.peek().tok == Tok::Sym(c)
    }
    fn at_keyword(&self, kw: &str) -> bool {
        matches!(&self.peek().tok, Tok::Ident(s) if *s == kw)
    }

    /// After a site's first `Class.method`: the other receivers of a polymorphic site
    /// (`, Square.area, Tri.area`, the same method on each) and its mix (`mix 60/30/10`).
    fn receiver_mix(&mut self, path: &str, method: &str) -> PResult<(Vec<String>, Vec<u32>)> {
        let mut others = Vec::new();
        while self.at_sym(',') {
            self.next()?;
            let (class, ct) = self.ident("a receiver class")?;
            self.cap(&ct, others.len() + 1, MAX_RECEIVERS, "receiver classes per site")?;
            // The site's first receiver counts with its second.
            self.n.receivers += 1 + usize::from(others.is_empty());
            if self.n.receivers > MAX_POLY_RECEIVERS {
                return self.error(&ct, format!("at most {} receiver classes over all polymorphic sites", thousands(MAX_POLY_RECEIVERS as u64)));
            }
            self.mark(|| format!("{path}.others[{}]", others.len()), &ct);
            self.sym('.')?;
            let (m, mt) = self.ident("a method name")?;
            if m != method {
                return self.error(&mt, format!("a call site calls one method: expected `{class}.{method}`, found `{class}.{m}`"));
            }
            others.push(class.to_string());
        }
        let mut mix = Vec::new();
        if self.at_keyword("mix") {
            let t = self.next()?;
            self.mark(|| format!("{path}.mix"), &t);
            loop {
                let (w, wt) = self.num("a mix weight (`mix 60/30/10`)")?;
                self.cap(&wt, mix.len(), MAX_RECEIVERS, "mix weights per site (one per receiver class)")?;
                self.mark(|| format!("{path}.mix[{}]", mix.len()), &wt);
                mix.push(u32::try_from(w).or_else(|_| self.error(&wt, "mix weight is too large"))?);
                if !self.at_sym('/') {
                    break;
                }
                self.next()?;
            }
        }
        Ok((others, mix))
    }

    fn scenario(&mut self) -> PResult<Scenario> {
        let mut s = Scenario::default();
        // Counted here, not read off `s`: a parse that keeps nothing places the same paths.
        let mut categories = 0;
        loop {
            if !self.lexer.short {
                // Read so far without the end of a partial text: a place to start again from.
                self.top = (self.cur_at, self.n);
            }
            if self.peek().tok == Tok::Eof {
                break;
            }
            if matches!(self.places, Places::Found) {
                // Placing one error: its path and its ancestors' are all marked by now.
                return Ok(s);
            }
            let t = self.next()?;
            let Tok::Ident(kw) = &t.tok else {
                return self.error(&t, format!("expected a declaration, found {}", describe(&t.tok)));
            };
            match *kw {
                "scenario" => {
                    let t = self.next()?;
                    match t.tok {
                        Tok::Str(name) => s.name = name.to_string(),
                        ref other => return self.error(&t, format!("expected a quoted name, found {}", describe(other))),
                    }
                }
                "semantics" => {
                    let (v, vt) = self.ident("`snapshot` or `live`")?;
                    s.semantics = match v.parse::<Semantics>() {
                        Ok(semantics) => semantics,
                        Err(e) => return self.error(&vt, e.to_string()),
                    };
                }
                "measure" => {
                    self.mark(|| "measure".into(), &t);
                    while self.at_keyword("warmup") || self.at_keyword("ops") {
                        let (k, _) = self.ident("`warmup` or `ops`")?;
                        let (n, nt) = self.num("a count")?;
                        let n = u32::try_from(n).or_else(|_| self.error(&nt, "count is too large"))?;
                        if k == "warmup" {
                            s.measure.warmup_ops = n;
                        } else {
                            s.measure.ops = n;
                        }
                    }
                }
                "class" => {
                    self.cap(&t, self.n.classes, MAX_CLASSES, "classes")?;
                    let path = self.sub(|| format!("classes[{}]", self.n.classes));
                    let c = self.class_body(&path)?;
                    self.n.classes += 1;
                    self.keep(&mut s.classes, || c);
                }
                "category" => {
                    let path = self.sub(|| format!("categories[{categories}]"));
                    let (name, nt) = self.ident("a category name")?;
                    self.mark(|| path.clone(), &nt);
                    let open = self.sym('{')?;
                    let (mut methods, mut count) = (Vec::new(), 0);
                    while !self.at_sym('}') {
                        if self.peek().tok == Tok::Eof {
                            return self.unclosed(&open, None, "`Class.method` or `}`");
                        }
                        let (class, ct) = self.ident("`Class.method`")?;
                        self.cap(&ct, count, MAX_METHODS, "methods per category")?;
                        self.mark(|| format!("{path}.methods[{count}]"), &ct);
                        self.sym('.')?;
                        let (method, _) = self.ident("a method name")?;
                        self.keep(&mut methods, || MethodRef { class: class.to_string(), method: method.to_string() });
                        count += 1;
                    }
                    self.sym('}')?;
                    self.keep(&mut s.categories, || CategoryDecl { name: name.to_string(), methods });
                    categories += 1;
                }
                "site" => {
                    self.cap(&t, self.n.sites, MAX_SITES, "sites")?;
                    let path = self.sub(|| format!("sites[{}]", self.n.sites));
                    let (name, nt) = self.ident("a site name")?;
                    self.mark(|| path.clone(), &nt);
                    self.sym('=')?;
                    let (class, ct) = self.ident("a receiver class")?;
                    self.mark(|| format!("{path}.class"), &ct);
                    self.sym('.')?;
                    let (method, mt) = self.ident("a method name")?;
                    self.mark(|| format!("{path}.method"), &mt);
                    let (others, mix) = self.receiver_mix(&path, method)?;
                    self.n.sites += 1;
                    self.keep(&mut s.sites, || SiteDecl::mono(name, class, method).with_receivers(others, mix));
                }
                "setup" => {
                    s.setup = self.block("setup")?;
                }
                "before-op" => {
                    s.before_op = self.block("before_op")?;
                }
                "op" => {
                    if self.n.seen_op {
                        return self.error(&t, "a scenario has one `op` block");
                    }
                    self.n.seen_op = true;
                    self.mark(|| "op".into(), &t);
                    s.op = self.block("op")?;
                }
                "expect" => {
                    self.cap(&t, self.n.expectations, crate::expect::MAX_EXPECTATIONS, "expectations")?;
                    let path = self.sub(|| format!("expectations[{}]", self.n.expectations));
                    self.mark(|| path.clone(), &t);
                    let e = self.expectation(&path)?;
                    self.n.expectations += 1;
                    self.keep(&mut s.expectations, || e);
                }
                other => {
                    return self.error(
                        &t,
                        format!(
                            "unknown declaration {} (expected scenario, semantics, measure, class, category, site, setup, before-op, op or expect)",
                            excerpt(other)
                        ),
                    )
                }
            }
        }
        if !self.n.seen_op {
            let t = *self.peek();
            return self.error(&t, "missing `op { .. }` block");
        }
        Ok(s)
    }

    fn class_body(&mut self, path: &str) -> PResult<ClassDecl> {
        let (name, nt) = self.ident("a class name")?;
        self.mark(|| path.to_string(), &nt);
        let mut c = ClassDecl { name: name.to_string(), parent: None, methods: vec![], metaclass: MetaKind::None, costs: vec![] };
        if self.at_keyword("extends") {
            self.next()?;
            let (p, pt) = self.ident("a parent class")?;
            self.mark(|| format!("{path}.parent"), &pt);
            c.parent = Some(p.to_string());
        }
        if self.at_keyword("metaclass") {
            self.next()?;
            c.metaclass = self.meta_kind()?;
        }
        if self.at_sym('{') {
            let open = self.next()?;
            // The first declaration word read as a method on a later line: a sign that this
            // `{` was never closed and the next declarations were read as its methods.
            let mut declaration: Option<Token> = None;
            let (mut count, mut costs) = (0, 0);
            while !self.at_sym('}') {
                if !matches!(self.peek().tok, Tok::Ident(_)) {
                    return self.unclosed(&open, declaration.as_ref(), "a method name or `}`");
                }
                let (m, mt) = self.ident("a method name or `}`")?;
                if declaration.is_none() && mt.line > open.line && DECLARATIONS.contains(&m) {
                    declaration = Some(Token { tok: Tok::Ident(m), ..mt });
                }
                self.cap(&mt, count, MAX_METHODS, "methods per class")?;
                self.mark(|| format!("{path}.methods[{count}]"), &mt);
                // `cost` followed by a number is a body cost; alone it is a method named `cost`.
                if self.at_keyword("cost") && matches!(self.peek_after().tok, Tok::Num(_)) {
                    self.body_cost(path, costs, m, &mut c.costs)?;
                    costs += 1;
                }
                self.keep(&mut c.methods, || m.to_string());
                count += 1;
            }
            self.sym('}')?;
        }
        Ok(c)
    }

    /// `cost 180ns` (or `us`) after a method name in a class body, the class's `k`th.
    fn body_cost(&mut self, path: &str, k: usize, method: &str, costs: &mut Vec<BodyCost>) -> PResult<()> {
        self.next()?;
        let (n, nt) = self.num("a cost such as `180ns`")?;
        let (unit, ut) = self.ident("a time unit (`ns` or `us`)")?;
        let scale = match unit {
            "ns" => 1,
            "us" => 1_000,
            other => return self.error(&ut, format!("unknown time unit `{other}` (expected ns or us)")),
        };
        self.mark(|| format!("{path}.costs[{k}]"), &nt);
        let Some(ns) = n.checked_mul(scale) else { return self.error(&nt, format!("cost {n}{unit} is too large")) };
        self.keep(costs, || BodyCost { method: method.to_string(), ns });
        Ok(())
    }

    fn meta_kind(&mut self) -> PResult<MetaKind> {
        let (k, kt) = self.ident("a metaclass kind")?;
        match k.parse() {
            Ok(kind) => Ok(kind),
            Err(e) => self.error(&kt, e.to_string()),
        }
    }

    fn block(&mut self, path: &str) -> PResult<Vec<Stmt>> {
        let open = self.sym('{')?;
        let (mut out, mut k) = (Vec::new(), 0);
        while !self.at_sym('}') {
            let t = *self.peek();
            match t.tok {
                Tok::Eof => return self.unclosed(&open, None, "a statement or `}`"),
                Tok::Ident(w) if DECLARATIONS.contains(&w) => return self.unclosed(&open, Some(&t), "a statement or `}`"),
                _ => {}
            }
            let p = self.sub(|| format!("{path}[{k}]"));
            let st = self.stmt(&p)?;
            self.keep(&mut out, || st);
            k += 1;
        }
        self.sym('}')?;
        Ok(out)
    }

    /// The body of the statement at `t`: refused before it is read when it would nest deeper
    /// than [`MAX_NESTING`], so no input makes the parser (or any walk after it) recurse deeper.
    fn body(&mut self, t: &Token, path: &str) -> PResult<Vec<Stmt>> {
        if self.depth >= MAX_NESTING {
            return self.error(t, format!("blocks nest at most {MAX_NESTING} deep; this one would be level {}", self.depth + 1));
        }
        self.depth += 1;
        let body = self.block(path)?;
        self.depth -= 1;
        Ok(body)
    }

    fn stmt(&mut self, p: &str) -> PResult<Stmt> {
        let (kw, t) = self.ident("a statement")?;
        self.mark(|| p.to_string(), &t);
        match kw {
            "call" => {
                self.cap(&t, self.n.calls, MAX_CALLS, "`call` statements")?;
                self.n.calls += 1;
            }
            "write" | "replace" | "remove" | "instance" | "load" | "invalidate" | "unattributed" => {
                self.cap(&t, self.n.events, MAX_EVENTS, "event statements")?;
                self.n.events += 1;
            }
            _ => {}
        }
        let class_field = |me: &mut Parser<'a>| -> PResult<String> {
            let (c, ct) = me.ident("a class name")?;
            me.mark(|| format!("{p}.class"), &ct);
            Ok(c.to_string())
        };
        Ok(match kw {
            "call" => {
                let (site, st) = self.ident("a site name")?;
                self.mark(|| format!("{p}.site"), &st);
                Stmt::Call { site: site.into() }
            }
            "loop" | "repeat" => {
                let (count, ct) = self.num("a count")?;
                self.mark(|| format!("{p}.count"), &ct);
                let body_path = self.sub(|| format!("{p}.body"));
                let body = self.body(&t, &body_path)?;
                if kw == "loop" {
                    Stmt::looped(count, body)
                } else {
                    Stmt::repeat(count, body)
                }
            }
            "every" => {
                let (period, pt) = self.num("a period")?;
                self.mark(|| format!("{p}.period"), &pt);
                let mut offset = 0;
                if self.at_keyword("offset") {
                    self.next()?;
                    let (o, ot) = self.num("an offset")?;
                    self.mark(|| format!("{p}.offset"), &ot);
                    offset = o;
                }
                let body_path = self.sub(|| format!("{p}.body"));
                let body = self.body(&t, &body_path)?;
                Stmt::every(period, offset, body)
            }
            "use" => {
                let (category, ct) = self.ident("a category name")?;
                self.mark(|| format!("{p}.category"), &ct);
                let body_path = self.sub(|| format!("{p}.body"));
                let body = self.body(&t, &body_path)?;
                Stmt::use_category(category.to_string(), body)
            }
            "write" => {
                let class = class_field(self)?;
                self.sym('.')?;
                let (method, mt) = self.ident("a method name")?;
                self.mark(|| format!("{p}.method"), &mt);
                Stmt::event(Event::Write { class, method: method.to_string() })
            }
            "replace" => {
                let class = class_field(self)?;
                let kind = self.meta_kind()?;
                Stmt::event(Event::Replace { class, kind })
            }
            "remove" => Stmt::event(Event::Remove { class: class_field(self)? }),
            "instance" => Stmt::event(Event::PerInstance { class: class_field(self)? }),
            "load" => {
                self.keyword("class")?;
                let load_path = self.sub(|| format!("{p}.load"));
                let c = self.class_body(&load_path)?;
                if let Some(spans) = &mut self.spans {
                    // The event's own fields name the same text as the class it loads.
                    for (from, to) in [("load", "class"), ("load.parent", "parent")] {
                        if let Some(&pos) = spans.get(&format!("{p}.{from}")) {
                            spans.insert(format!("{p}.{to}"), pos);
                        }
                    }
                }
                if c.metaclass != MetaKind::None {
                    return self.error(&t, "a loaded class starts without a metaclass");
                }
                Stmt::event(Event::Load { class: c.name, parent: c.parent, methods: c.methods })
            }
            "invalidate" => {
                self.keyword("all")?;
                Stmt::event(Event::InvalidateAll)
            }
            "unattributed" => Stmt::event(Event::Unattributed),
            other => {
                return self.error(
                    &t,
                    format!(
                        "unknown statement {} (expected call, loop, every, repeat, use, write, replace, remove, instance, load, invalidate or unattributed)",
                        excerpt(other)
                    ),
                )
            }
        })
    }
}

/// The words that start a top-level declaration.
const DECLARATIONS: [&str; 10] = ["scenario", "semantics", "measure", "class", "category", "site", "setup", "before-op", "op", "expect"];

/// Model path (`classes[2].parent`) -> the `(line, col)` of the text that produced it.
pub type Spans = FxMap<String, (usize, usize)>;

/// The shortest text of one site declaration and what separates it from the next (`site
/// a=A.m `): a text shorter than this many bytes per site cannot declare too many.
const SHORTEST_SITE: usize = 11;

/// Whether `src` may declare more than [`MAX_SITES`] sites: it is long enough, and has more
/// words `site` than that. A valid text of 10^6 sites has exactly that many, so it is not
/// parsed twice.
fn may_pass_site_cap(src: &str) -> bool {
    src.len() > SHORTEST_SITE * MAX_SITES && src.as_bytes().windows(4).filter(|w| w == b"site").nth(MAX_SITES).is_some()
}

fn parse_text(src: &str, places: Places) -> Result<(Scenario, Spans), ScenarioError> {
    // Building a million sites before refusing the next is 55 MB: a text that may be past the
    // site cap is parsed first without keeping what it declares, which refuses it at the
    // same place for the same reason (the first in the text) at the cost of reading it.
    if may_pass_site_cap(src) {
        Parser::over(Lexer::new(src)?, Counts::default(), Places::None, false)?.scenario()?;
    }
    let mut p = Parser::new(src, places)?;
    let s = p.scenario()?;
    Ok((s, p.spans.unwrap_or_default()))
}

/// Parse scenario text without validating it, with the place of every model path.
pub fn parse_unchecked(src: &str) -> Result<(Scenario, Spans), ScenarioError> {
    parse_text(src, Places::All)
}

/// The place (`line:col`) of each expectation in scenario text, by its path
/// (`expectations[i]`), and no other place: `blast check` names each expectation where it is
/// written without a map of every path of a million-site text.
pub fn expectation_places(src: &str) -> Result<Spans, ScenarioError> {
    places_of(src, Places::Under("expectations["))
}

/// Parse and validate scenario text; every error names `line:col`. A valid text is parsed once
/// without recording places (a path string per node was most of the parse's cost); an invalid
/// one is parsed again, recording the places of the error's path, to place it.
pub fn parse(src: &str) -> Result<Scenario, ScenarioError> {
    let (s, _) = parse_text(src, Places::None)?;
    match validate(&s) {
        Ok(()) => Ok(s),
        Err(e) => {
            drop(s);
            let Some(Location::Path(path)) = &e.location else { return Err(e) };
            let places = places_of(src, Places::Of(path.to_string()))?;
            Err(locate(e, &places))
        }
    }
}

/// The `places` wanted in `src`, a text that parses: read keeping nothing (the paths count
/// what a kept list would hold), so placing an error or the expectations of a 10^6-site text
/// does not build its model again.
fn places_of(src: &str, places: Places) -> Result<Spans, ScenarioError> {
    let mut p = Parser::over(Lexer::new(src)?, Counts::default(), places, false)?;
    p.scenario()?;
    Ok(p.spans.unwrap_or_default())
}

/// Map a path-located validation error to the closest recorded text position.
fn locate(e: ScenarioError, spans: &Spans) -> ScenarioError {
    let Some(Location::Path(path)) = &e.location else { return e };
    let mut probe = path.as_str();
    loop {
        if let Some(&(line, col)) = spans.get(probe) {
            return ScenarioError::at_text(line, col, e.message);
        }
        match probe.rfind(['.', '[']) {
            Some(cut) if cut > 0 => probe = &probe[..cut],
            _ => return ScenarioError::at_text(1, 1, e.message),
        }
    }
}

/// Render a scenario as DSL text; `parse(print(s)) == s` for every valid scenario.
pub fn print(s: &Scenario) -> String {
    let mut out = String::new();
    if !s.name.is_empty() {
        let _ = writeln!(out, "scenario \"{}\"", s.name.replace('"', "'"));
    }
    let _ = writeln!(out, "semantics {}", s.semantics);
    let _ = writeln!(out, "measure warmup {} ops {}", s.measure.warmup_ops, s.measure.ops);
    for c in &s.classes {
        out.push_str("class ");
        out.push_str(&class_text(&c.name, c.parent.as_deref(), c.metaclass, &method_texts(c)));
        out.push('\n');
    }
    for cat in &s.categories {
        let methods: Vec<String> = cat.methods.iter().map(|m| format!("{}.{}", m.class, m.method)).collect();
        let _ = writeln!(out, "category {} {{ {} }}", cat.name, methods.join(" "));
    }
    for site in &s.sites {
        let _ = write!(out, "site {} = {}.{}", site.name, site.class, site.method);
        for other in site.others() {
            let _ = write!(out, ", {other}.{}", site.method);
        }
        if !site.mix().is_empty() {
            let weights: Vec<String> = site.mix().iter().map(u32::to_string).collect();
            let _ = write!(out, " mix {}", weights.join("/"));
        }
        out.push('\n');
    }
    for b in [Block::Setup, Block::BeforeOp] {
        let block = s.block(b);
        if !block.is_empty() {
            out.push_str(b.keyword());
            out.push(' ');
            print_block(block, 0, &mut out);
            out.push('\n');
        }
    }
    out.push_str("op ");
    print_block(&s.op, 0, &mut out);
    out.push('\n');
    for e in &s.expectations {
        let _ = writeln!(out, "{e}");
    }
    out
}

/// A class's methods as printed: each with its body cost, if it has one.
fn method_texts(c: &ClassDecl) -> Vec<String> {
    // By a map: a class may declare 10^4 methods with a cost each.
    let costs: FxMap<&str, u64> = c.costs.iter().map(|k| (k.method.as_str(), k.ns)).collect();
    c.methods.iter().map(|m| costs.get(m.as_str()).map_or_else(|| m.clone(), |ns| format!("{m} cost {ns}ns"))).collect()
}

fn class_text(name: &str, parent: Option<&str>, meta: MetaKind, methods: &[String]) -> String {
    let mut s = name.to_string();
    if let Some(p) = parent {
        let _ = write!(s, " extends {p}");
    }
    if meta != MetaKind::None {
        let _ = write!(s, " metaclass {}", meta.name());
    }
    if !methods.is_empty() {
        let _ = write!(s, " {{ {} }}", methods.join(" "));
    }
    s
}

/// Blocks of at most this many plain statements (events, calls) print on one line.
const INLINE_BLOCK: usize = 3;

fn print_block(block: &[Stmt], depth: usize, out: &mut String) {
    if block.len() <= INLINE_BLOCK && block.iter().all(|st| matches!(st, Stmt::Event(_) | Stmt::Call { .. })) {
        out.push('{');
        for st in block {
            out.push(' ');
            print_stmt(st, depth, out);
        }
        out.push_str(" }");
        return;
    }
    out.push_str("{\n");
    for st in block {
        out.push_str(&"  ".repeat(depth + 1));
        print_stmt(st, depth + 1, out);
        out.push('\n');
    }
    out.push_str(&"  ".repeat(depth));
    out.push('}');
}

fn print_stmt(st: &Stmt, depth: usize, out: &mut String) {
    let nested = |head: String, body: &[Stmt], out: &mut String| {
        out.push_str(&head);
        out.push(' ');
        print_block(body, depth, out);
    };
    match st {
        Stmt::Call { site } => {
            let _ = write!(out, "call {site}");
        }
        Stmt::Loop(l) => nested(format!("loop {}", l.count), &l.body, out),
        Stmt::Repeat(r) => nested(format!("repeat {}", r.count), &r.body, out),
        Stmt::Every(e) => {
            let (period, offset) = (e.period, e.offset);
            let head = if offset == 0 { format!("every {period}") } else { format!("every {period} offset {offset}") };
            nested(head, &e.body, out)
        }
        Stmt::Use(u) => nested(format!("use {}", u.category), &u.body, out),
        Stmt::Event(ev) => out.push_str(&event_text(ev)),
    }
}

/// The DSL spelling of one event (also used as its label in reports).
pub fn event_text(ev: &Event) -> String {
    match ev {
        Event::Write { class, method } => format!("write {class}.{method}"),
        Event::Replace { class, kind } => format!("replace {class} {}", kind.name()),
        Event::Remove { class } => format!("remove {class}"),
        Event::PerInstance { class } => format!("instance {class}"),
        Event::Load { class, parent, methods } => format!("load class {}", class_text(class, parent.as_deref(), MetaKind::None, methods)),
        Event::InvalidateAll => "invalidate all".into(),
        Event::Unattributed => "unattributed".into(),
    }
}

/// Parse a scenario given either as DSL text or as JSON (detected by a leading `{`).
pub fn parse_any(src: &str) -> Result<Scenario, ScenarioError> {
    // A byte-order mark is not part of either form (editors on Windows write one).
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    if src.trim_start().starts_with('{') {
        from_json(src)
    } else {
        parse(src)
    }
}

/// The refusal of element `number` of a list capped at `max` (`what`), in every form.
pub(crate) fn cap_refusal(max: usize, what: &str, number: usize) -> String {
    format!("at most {} {what}; this is number {}", thousands(max as u64), thousands(number as u64))
}

/// The refusal of a scenario's JSON read from `r` at its first list element past a cap,
/// counted as it is read without building anything (what `from_json` refuses first of all);
/// `Ok` when no cap is passed, or the text is refused for something else first (which
/// `from_json` of the whole text names).
pub fn refuse_json_past_caps(r: impl std::io::Read) -> Result<(), ScenarioError> {
    use std::io::BufRead;
    let mut r = std::io::BufReader::with_capacity(64 * 1024, r);
    // A byte-order mark is not part of the text, as `parse_any` reads it (a read error is the
    // walk's: it stops there, and the read of the whole text reports it).
    if r.fill_buf().is_ok_and(|b| b.starts_with("\u{feff}".as_bytes())) {
        r.consume('\u{feff}'.len_utf8());
    }
    crate::json::refuse_past_caps(r)
}

/// Parse and validate the JSON form; syntax errors carry `line:col`, model errors a path.
pub fn from_json(src: &str) -> Result<Scenario, ScenarioError> {
    if src.len() > MAX_INPUT {
        return Err(ScenarioError::at_text(1, 1, format!("scenario JSON is {} bytes; at most {MAX_INPUT}", src.len())));
    }
    let s: Scenario = crate::json::decode_scenario(src)?;
    validate(&s)?;
    Ok(s)
}
