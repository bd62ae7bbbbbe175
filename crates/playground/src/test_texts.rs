//! Scenario texts the autosave's and the worker's message tests share: compiled for tests only.

/// `class C0 { m0 }` then `class Ci extends C(i-1) { mi }`: a text that deflates well (a big
/// paste's shape).
pub fn chain(n: usize) -> String {
    (0..n).map(|i| format!("class C{i}{} {{ m{i} }}\n", if i == 0 { String::new() } else { format!(" extends C{}", i - 1) })).collect()
}

/// `lines` lines that deflate cannot predict (xorshift), so its packed form is about as long.
pub fn undeflatable(lines: usize) -> String {
    let mut x: u64 = 1;
    (0..lines)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            format!("{x:x}\n")
        })
        .collect()
}
