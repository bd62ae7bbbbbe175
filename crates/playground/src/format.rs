//! Number and message formatting shared by the tables, charts, exports and messages.

/// A throughput or ratio with three significant digits (`0.00331`, `0.595`, `179.9`).
pub fn sig3(v: f64) -> String {
    if !v.is_finite() {
        return if v.is_nan() { "–".into() } else { "∞".into() };
    }
    significant(v, 3, 8)
}

/// A finite `v` with `digits` significant digits, at most `max_decimals` after the point
/// (`significant(0.0027063, 3, 8)` = `0.00271`; trailing zeros kept: `2.50`).
pub fn significant(v: f64, digits: i32, max_decimals: i32) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let magnitude = v.abs().log10().floor() as i32;
    let decimals = (digits - 1 - magnitude).clamp(0, max_decimals) as usize;
    format!("{v:.decimals$}")
}

/// Splits a message into plain text and `` `code` `` spans (`true` = code), the way the
/// engine's and the page's messages quote names. An unpaired backtick stays literal text.
pub fn code_spans(text: &str) -> Vec<(bool, &str)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else { break };
        if open > 0 {
            out.push((false, &rest[..open]));
        }
        out.push((true, &rest[open + 1..open + 1 + len]));
        rest = &rest[open + len + 2..];
    }
    if !rest.is_empty() {
        out.push((false, rest));
    }
    out
}

/// A short decimal without trailing zeros: `0.0001`, `0.1`, `10`.
pub fn plain(v: f64) -> String {
    let s = format!("{v:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `a / b` as `179.9×`.
pub fn ratio(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    format!("{}×", sig3(v))
}

/// Virtual time: `850 µs`, `12.3 ms`, `2.41 s`.
pub fn duration_ms(ms: f64) -> String {
    if !ms.is_finite() {
        return "–".into();
    }
    if ms < 1.0 {
        format!("{} µs", sig3(ms * 1000.0))
    } else if ms < 1000.0 {
        format!("{} ms", sig3(ms))
    } else {
        format!("{} s", sig3(ms / 1000.0))
    }
}

/// Counts with thin-space thousands separators: `12 345`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let groups: Vec<&str> = digits.as_bytes().rchunks(3).rev().map(|g| std::str::from_utf8(g).unwrap_or("")).collect();
    groups.join("\u{2009}")
}

/// `n` things, counted as [`count`] does, the noun in its regular plural unless `n` is 1:
/// "1 site", "4 794 sites", "2 classes" (a noun ending in s takes "es").
pub fn counted(n: u64, noun: &str) -> String {
    let suffix = match (n, noun.ends_with('s')) {
        (1, _) => "",
        (_, true) => "es",
        (_, false) => "s",
    };
    format!("{} {noun}{suffix}", count(n))
}

/// A model's unit for display: `us/op` reads `µs/op`.
pub fn unit(u: &str) -> String {
    match u.strip_prefix("us/") {
        Some(rest) => format!("µs/{rest}"),
        None => u.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_significant_digits() {
        assert_eq!(sig3(0.0033094), "0.00331");
        assert_eq!(sig3(0.5952), "0.595");
        assert_eq!(sig3(5.5556), "5.56");
        assert_eq!(sig3(179.88), "180");
        assert_eq!(sig3(12345.6), "12346");
        assert_eq!(sig3(0.0), "0");
        assert_eq!(sig3(f64::NAN), "–");
    }

    #[test]
    fn plain_drops_trailing_zeros() {
        assert_eq!(plain(0.0001), "0.0001");
        assert_eq!(plain(0.1), "0.1");
        assert_eq!(plain(100.0), "100");
    }

    #[test]
    fn durations_pick_a_unit() {
        assert_eq!(duration_ms(0.5), "500 µs");
        assert_eq!(duration_ms(12.34), "12.3 ms");
        assert_eq!(duration_ms(2410.0), "2.41 s");
    }

    #[test]
    fn units_read_naturally() {
        assert_eq!(unit("us/op"), "µs/op");
        assert_eq!(unit("ns/op"), "ns/op");
    }

    #[test]
    fn counts_group_thousands() {
        assert_eq!(count(7), "7");
        assert_eq!(count(4794), "4\u{2009}794");
        assert_eq!(count(1_234_567), "1\u{2009}234\u{2009}567");
    }

    #[test]
    fn counted_nouns_are_plural_unless_one() {
        assert_eq!(counted(1, "site"), "1 site");
        assert_eq!(counted(0, "site"), "0 sites");
        assert_eq!(counted(4794, "relink"), "4\u{2009}794 relinks");
        assert_eq!((counted(1, "class"), counted(1900, "class")), ("1 class".to_string(), "1\u{2009}900 classes".to_string()));
    }

    #[test]
    fn backticks_become_code_spans() {
        assert_eq!(code_spans("no class `Hot` in `a.b`."), [(false, "no class "), (true, "Hot"), (false, " in "), (true, "a.b"), (false, ".")]);
        assert_eq!(code_spans("`x`"), [(true, "x")]);
        assert_eq!(code_spans("odd ` tick"), [(false, "odd ` tick")]);
        assert_eq!(code_spans(""), Vec::<(bool, &str)>::new());
    }
}
