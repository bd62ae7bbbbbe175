//! Read-only markup written as text (issue 11 item 4, the bundle): a table or a paragraph the
//! page only shows costs far less code as one string, set with `Html::from_html_unchecked`,
//! than as a virtual node per element built inline by `html!`. Every value that is not a
//! literal of ours goes through [`escape`]: names come from imported files and strangers' links.

/// `text` safe as element content and as a double- or single-quoted attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn markup_characters_become_references_and_the_rest_stays() {
        assert_eq!(escape("<script>alert('x')</script>"), "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
        assert_eq!(escape(r#"a" onmouseover="x"#), "a&quot; onmouseover=&quot;x");
        // `&` first: an entity already in the text is shown as typed, not decoded.
        assert_eq!(escape("&lt; & &amp;"), "&amp;lt; &amp; &amp;amp;");
        assert_eq!(escape("fanout_root@8 · →"), "fanout_root@8 · →");
        assert_eq!(escape(""), "");
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
