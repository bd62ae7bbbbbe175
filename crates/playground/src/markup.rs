//! Read-only markup written as text (for the bundle's size): a table or a paragraph the
//! page only shows costs far less code as one string, set with `Html::from_html_unchecked`,
//! than as a virtual node per element built inline by `html!`. Every value that is not a
//! literal of ours goes through [`escape`]: names come from imported files and strangers' links.

/// `text` safe as element content and as a double- or single-quoted attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text);
    out
}

/// Appends [`escape`]`(text)` to `out`: the runs between markup characters are copied whole,
/// so a long line (the DSL view's, `dsl_editor::highlight_html`) costs a few copies, not one
/// push per character.
pub fn escape_into(out: &mut String, text: &str) {
    let mut from = 0;
    for (at, b) in text.bytes().enumerate() {
        let reference = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        // An ASCII byte is a char boundary on both sides.
        out.push_str(&text[from..at]);
        out.push_str(reference);
        from = at + 1;
    }
    out.push_str(&text[from..]);
}

#[cfg(test)]
mod tests {
    use super::{escape, escape_into};

    #[test]
    fn markup_characters_become_references_and_the_rest_stays() {
        assert_eq!(escape("<script>alert('x')</script>"), "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
        assert_eq!(escape(r#"a" onmouseover="x"#), "a&quot; onmouseover=&quot;x");
        // `&` first: an entity already in the text is shown as typed, not decoded.
        assert_eq!(escape("&lt; & &amp;"), "&amp;lt; &amp; &amp;amp;");
        assert_eq!(escape("fanout_root@8 · →"), "fanout_root@8 · →");
        assert_eq!(escape(""), "");
        let mut out = String::from("<b>");
        escape_into(&mut out, "a'b");
        assert_eq!(out, "<b>a&#39;b");
    }

    #[test]
    fn nothing_escaped_can_open_a_tag_or_leave_an_attribute() {
        let hostile = "\"'><img src=x onerror=alert(1)>&amp;<!--";
        let e = escape(hostile);
        assert!(!e.contains(['<', '>', '"', '\'']), "{e}");
        // Every `&` starts one of our references.
        let refs = ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"];
        assert!(e.match_indices('&').all(|(i, _)| refs.iter().any(|r| e[i..].starts_with(r))), "{e}");
    }
}
