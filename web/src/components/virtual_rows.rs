//! Long editor lists render only the rows in view (plus a few either side), with spacers of
//! the skipped rows' height, so a 100,000-class world costs the DOM what 40 rows cost.
//! Short lists render every row as before (nothing to gain, and find-in-page keeps working).

use yew::prelude::*;

use crate::browser;

/// Lists longer than this are virtualized.
pub const VIRTUAL_ABOVE: usize = 120;
/// The fixed row height of a virtualized list (px; `.virtual` rows in style.css).
pub const ROW_PX: f64 = 36.0;
/// Rows the scroll box shows at once.
pub const VIEW_ROWS: usize = 14;
/// Rows rendered beyond each edge, so a short scroll never shows a blank band.
const OVERSCAN: usize = 6;

/// The rows to render for a scroll position: `start..end`, with the pixel height skipped
/// before and after.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub before_px: f64,
    pub after_px: f64,
}

pub fn span(count: usize, scroll_top: f64) -> Span {
    if count <= VIRTUAL_ABOVE {
        return Span { start: 0, end: count, before_px: 0.0, after_px: 0.0 };
    }
    let first = (scroll_top.max(0.0) / ROW_PX) as usize;
    let start = first.saturating_sub(OVERSCAN).min(count);
    let end = (first + VIEW_ROWS + OVERSCAN).min(count);
    Span { start, end, before_px: start as f64 * ROW_PX, after_px: (count - end) as f64 * ROW_PX }
}

pub struct Window {
    pub span: Span,
    pub virtualized: bool,
    pub onscroll: Callback<Event>,
    /// Style of the scroll box: a fixed height when virtualized.
    pub style: String,
}

/// The visible span of a list of `count` rows in a scroll box.
#[hook]
pub fn use_window(count: usize) -> Window {
    let scroll_top = use_state(|| 0.0f64);
    let onscroll = {
        let scroll_top = scroll_top.clone();
        Callback::from(move |e: Event| scroll_top.set(browser::scroll_of(&e).0))
    };
    let virtualized = count > VIRTUAL_ABOVE;
    let style = if virtualized { format!("max-height: {}px; overflow-y: auto;", ROW_PX * VIEW_ROWS as f64) } else { String::new() };
    Window { span: span(count, *scroll_top), virtualized, onscroll, style }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lists_render_whole() {
        assert_eq!(span(VIRTUAL_ABOVE, 500.0), Span { start: 0, end: VIRTUAL_ABOVE, before_px: 0.0, after_px: 0.0 });
    }

    #[test]
    fn long_lists_render_the_view_and_spacers_keep_the_height() {
        let n = 100_000;
        for top in [0.0, 3_600.0, ROW_PX * n as f64, -5.0] {
            let s = span(n, top);
            assert!(s.end - s.start <= VIEW_ROWS + 2 * OVERSCAN, "{s:?}");
            let total = s.before_px + (s.end - s.start) as f64 * ROW_PX + s.after_px;
            assert_eq!(total, n as f64 * ROW_PX, "{s:?}");
        }
        assert_eq!(span(n, 3_600.0).start, 100 - OVERSCAN);
    }
}
