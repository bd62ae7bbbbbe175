//! Small field readers shared by the format readers: numbers, hex addresses, XML attributes.

use std::borrow::Cow;

/// `0x1a2b` (or bare hex) as a number.
pub(super) fn hex(s: &str) -> Option<u64> {
    u64::from_str_radix(s.strip_prefix("0x").unwrap_or(s), 16).ok()
}

pub(super) fn num<T: std::str::FromStr>(s: &str) -> Option<T> {
    s.parse().ok()
}

/// `file:line:col` split at its last two colons (a file name may hold colons: `node:path`).
pub(super) fn position(s: &str) -> Option<(&str, u32, u32)> {
    let (rest, col) = s.rsplit_once(':')?;
    let (file, line) = rest.rsplit_once(':')?;
    Some((file, num(line)?, num(col)?))
}

/// Seconds with a decimal fraction (HotSpot's `stamp='0.049'`) as whole microseconds.
pub(super) fn seconds_to_us(s: &str) -> Option<u64> {
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    let whole: u64 = num(whole)?;
    let mut us = 0u64;
    for (i, c) in frac.bytes().chain(std::iter::repeat(b'0')).take(6).enumerate() {
        if !c.is_ascii_digit() || (i >= frac.len() && c != b'0') {
            return None;
        }
        us = us * 10 + u64::from(c - b'0');
    }
    whole.checked_mul(1_000_000)?.checked_add(us)
}

/// The value of `name='...'` in an XML start tag (HotSpot writes single quotes:
/// `xmlStream::print_raw` callers in src/hotspot/share/utilities/xmlstream.cpp).
pub(super) fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(i) = tag[from..].find(name) {
        let at = from + i;
        let after = &tag[at + name.len()..];
        let before_ok = at > 0 && tag.as_bytes()[at - 1] == b' ';
        if before_ok {
            if let Some(v) = after.strip_prefix("='") {
                return v.find('\'').map(|end| &v[..end]);
            }
        }
        from = at + name.len();
    }
    None
}

/// XML's five entities decoded (`&apos;` and `&quot;` appear in HotSpot's method names and
/// command lines).
pub(super) fn unescape(s: &str) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let known = [("&lt;", '<'), ("&gt;", '>'), ("&amp;", '&'), ("&apos;", '\''), ("&quot;", '"')];
        match known.iter().find(|(e, _)| rest.starts_with(e)) {
            Some((e, c)) => {
                out.push(*c);
                rest = &rest[e.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_read_as_the_logs_write_them() {
        assert_eq!(hex("0x7fcc1dfc7340"), Some(0x7fcc1dfc7340));
        assert_eq!(position("node:internal/errors:536:21"), Some(("node:internal/errors", 536, 21)));
        assert_eq!(position("x.js:3"), None);
        assert_eq!(seconds_to_us("0.049"), Some(49_000));
        assert_eq!(seconds_to_us("12"), Some(12_000_000));
        assert_eq!(seconds_to_us("1.x"), None);
        let tag = "<make_not_entrant thread='10738' compile_id='13' compiler='c2' level='4' stamp='0.049'/>";
        assert_eq!(attr(tag, "compile_id"), Some("13"));
        assert_eq!(attr(tag, "id"), None, "a suffix of another name is not the attribute");
        assert_eq!(attr("<a x='1", "x"), None, "an unclosed value is no value");
        assert_eq!(unescape("a &apos;b&apos; &amp; &zz"), "a 'b' & &zz");
    }
}
