//! Lines out of chunks: a line split across chunks is joined in one bounded buffer; a line
//! longer than the bound is never held whole (its first bytes are kept to show, the rest only
//! counted).

/// Bytes of a too-long line kept to show where it was.
const HEAD: usize = 160;

pub(super) enum Piece<'a> {
    Line(&'a [u8]),
    TooLong { head: &'a [u8], len: u64 },
}

pub(super) struct Lines {
    max: usize,
    /// The start of a line not yet ended, at most `max` bytes.
    partial: Vec<u8>,
    /// Set while skipping a line over `max`: its length so far (the head is in `partial`).
    skipping: Option<u64>,
}

impl Lines {
    pub(super) fn new(max: usize) -> Lines {
        Lines { max, partial: Vec::new(), skipping: None }
    }

    /// Hand every line ended in `chunk` to `f`, keeping the unended rest; stops early when `f`
    /// returns false.
    pub(super) fn split(&mut self, mut chunk: &[u8], mut f: impl FnMut(Piece<'_>) -> bool) {
        while !chunk.is_empty() {
            let Some(i) = find_newline(chunk) else {
                self.keep(chunk);
                return;
            };
            let (piece, rest) = (&chunk[..i], &chunk[i + 1..]);
            chunk = rest;
            let go = if let Some(len) = self.skipping.take() {
                let len = len + piece.len() as u64;
                let go = f(Piece::TooLong { head: &self.partial, len });
                self.partial.clear();
                go
            } else if self.partial.is_empty() {
                if piece.len() > self.max {
                    f(Piece::TooLong { head: &piece[..HEAD.min(piece.len())], len: piece.len() as u64 })
                } else {
                    f(Piece::Line(piece))
                }
            } else if self.partial.len() + piece.len() > self.max {
                let len = (self.partial.len() + piece.len()) as u64;
                self.partial.truncate(HEAD);
                let go = f(Piece::TooLong { head: &self.partial, len });
                self.partial.clear();
                go
            } else {
                self.partial.extend_from_slice(piece);
                let go = f(Piece::Line(&self.partial));
                self.partial.clear();
                go
            };
            if !go {
                return;
            }
        }
    }

    /// The input ended: the unended last line, if any.
    pub(super) fn end(&mut self, mut f: impl FnMut(Piece<'_>) -> bool) {
        if let Some(len) = self.skipping.take() {
            f(Piece::TooLong { head: &self.partial, len });
        } else if !self.partial.is_empty() {
            f(Piece::Line(&self.partial));
        }
        self.partial = Vec::new();
    }

    /// Keep the start of a line not yet ended, within the bound.
    fn keep(&mut self, bytes: &[u8]) {
        if let Some(len) = &mut self.skipping {
            *len += bytes.len() as u64;
        } else if self.partial.len() + bytes.len() > self.max {
            let len = (self.partial.len() + bytes.len()) as u64;
            let room = HEAD.saturating_sub(self.partial.len());
            self.partial.extend_from_slice(&bytes[..room.min(bytes.len())]);
            self.partial.truncate(HEAD);
            self.skipping = Some(len);
        } else {
            self.partial.extend_from_slice(bytes);
        }
    }
}

/// The first `\n` in `s`, eight bytes at a time (the zero-byte test of "Bit Twiddling Hacks",
/// `haszero(v ^ 0x0a0a..)`), so splitting keeps pace with the readers.
fn find_newline(s: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = LO * b'\n' as u64;
    let mut i = 0;
    while i + 8 <= s.len() {
        let w = u64::from_le_bytes(s[i..i + 8].try_into().expect("8 bytes")) ^ NL;
        let z = w.wrapping_sub(LO) & !w & HI;
        if z != 0 {
            return Some(i + (z.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    s[i..].iter().position(|&c| c == b'\n').map(|p| i + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(chunks: &[&[u8]], max: usize) -> Vec<String> {
        let mut l = Lines::new(max);
        let mut out = Vec::new();
        let mut push = |p: Piece<'_>| {
            out.push(match p {
                Piece::Line(b) => String::from_utf8_lossy(b).into_owned(),
                Piece::TooLong { head, len } => format!("LONG {len} {}", String::from_utf8_lossy(head)),
            });
            true
        };
        for c in chunks {
            l.split(c, &mut push);
        }
        l.end(&mut push);
        out
    }

    #[test]
    fn a_line_split_across_chunks_is_joined() {
        assert_eq!(collect(&[b"ab", b"c\nde", b"f\n", b"g"], 100), ["abc", "def", "g"]);
        assert_eq!(collect(&[b"a\n\nb\n"], 100), ["a", "", "b"]);
    }

    #[test]
    fn a_line_over_the_bound_is_counted_not_held() {
        let long = vec![b'x'; 1000];
        let out = collect(&[b"ok\n", &long[..400], &long[400..], b"\nnext\n"], 300);
        assert_eq!(out.len(), 3);
        assert_eq!(out[0], "ok");
        assert!(out[1].starts_with("LONG 1000 xxx"), "{}", out[1]);
        assert_eq!(out[2], "next");
        let mut l = Lines::new(300);
        l.split(&long, |_| true);
        assert!(l.partial.len() <= HEAD, "a skipped line keeps only its head");
    }

    #[test]
    fn newlines_are_found_at_every_offset() {
        for len in 0..40 {
            for at in 0..len {
                let mut s = vec![b'a'; len];
                s[at] = b'\n';
                assert_eq!(find_newline(&s), Some(at));
            }
            assert_eq!(find_newline(&vec![0x8a; len]), None);
        }
    }
}
