//! A closed or full output never panics: a broken pipe ends `blast` quietly with exit 0 (as
//! `grep` and `rg` do), any other write failure with one line on stderr and exit 74, and a
//! failing stderr is ignored. In process with writers that fail, and once through the built
//! binary with its stdout pipe closed by the reader.

use std::io::{self, Read, Write};
use std::process::{Command, Stdio};

use blast_cli::{run, EXIT_OUTPUT};

/// Takes `room` bytes, then fails every write with `kind`.
struct Failing {
    room: usize,
    kind: io::ErrorKind,
}

impl Write for Failing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.room == 0 {
            return Err(io::Error::from(self.kind));
        }
        let n = buf.len().min(self.room);
        self.room -= n;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// Every command that prints, in each of its big formats.
const PRINTING: &[&[&str]] = &[
    &["presets"],
    &["help"],
    &["run", "all", "--format", "json"],
    &["run", "all", "--format", "csv"],
    &["run", "all"],
    &["show", "hotLoop_unrelatedMetaClassChurn", "--format", "json"],
    &["sweep", "hotLoop_unrelatedMetaClassChurn", "--param", "churn_every=10,100"],
    &["run", "arena_closeGroup", "--format", "json"],
    &["check", "hotLoop_unrelatedMetaClassChurn", "--format", "junit"],
];

#[test]
fn a_broken_pipe_ends_every_command_quietly_with_exit_0() {
    for a in PRINTING {
        let mut stderr = Vec::new();
        let code = run(&args(a), &mut Failing { room: 10, kind: io::ErrorKind::BrokenPipe }, &mut stderr);
        assert_eq!((code, String::from_utf8_lossy(&stderr).as_ref()), (0, ""), "{a:?}");
    }
}

#[test]
fn a_full_output_ends_every_command_with_one_line_and_exit_74() {
    assert_eq!(EXIT_OUTPUT, 74);
    for a in PRINTING {
        let mut stderr = Vec::new();
        let code = run(&args(a), &mut Failing { room: 0, kind: io::ErrorKind::StorageFull }, &mut stderr);
        let err = String::from_utf8(stderr).unwrap();
        assert_eq!(code, EXIT_OUTPUT, "{a:?}: {err}");
        assert!(err.starts_with("error: cannot write the output: ") && err.ends_with('\n') && err.lines().count() == 1, "{a:?}: {err}");
    }
}

#[test]
fn a_failing_stderr_leaves_the_exit_code_and_does_not_panic() {
    let mut stdout = Vec::new();
    let code = run(&args(&["run", "/nonexistent/scenario.blast"]), &mut stdout, &mut Failing { room: 0, kind: io::ErrorKind::StorageFull });
    assert_eq!(code, 1);
    let code = run(&args(&["presets"]), &mut Failing { room: 0, kind: io::ErrorKind::StorageFull }, &mut Failing { room: 0, kind: io::ErrorKind::BrokenPipe });
    assert_eq!(code, EXIT_OUTPUT);
}

#[test]
fn the_binary_exits_0_without_a_panic_when_its_reader_closes_the_pipe() {
    // `run all --format json` prints ~17 MB, far more than a pipe holds: the binary is still
    // writing when the reader goes away, whatever the timing.
    let mut child = Command::new(env!("CARGO_BIN_EXE_blast"))
        .args(["run", "all", "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the blast binary starts");
    let mut head = [0u8; 10];
    child.stdout.take().expect("piped").read_exact(&mut head).expect("10 bytes");
    // The read end is dropped here: the next write gets EPIPE.
    let mut stderr = String::new();
    child.stderr.take().expect("piped").read_to_string(&mut stderr).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    assert!(head.starts_with(b"["), "{head:?}");
}

#[test]
fn the_binary_reports_a_full_disk_in_one_line_with_exit_74() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else { return };
    let out = Command::new(env!("CARGO_BIN_EXE_blast")).arg("presets").stdout(full).output().expect("the blast binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(EXIT_OUTPUT), "{stderr}");
    assert_eq!(stderr.lines().collect::<Vec<_>>(), ["error: cannot write the output: No space left on device (os error 28)"]);
}

#[test]
fn help_documents_every_exit_code() {
    let mut help = Vec::new();
    assert_eq!(run(&args(&["help"]), &mut help, &mut io::sink()), 0);
    let help = String::from_utf8(help).unwrap();
    let codes = help.split("exit codes:").nth(1).expect("an exit codes section");
    for code in ["0 ", "1 ", "2 ", &format!("{EXIT_OUTPUT} ")] {
        assert!(codes.lines().any(|l| l.trim_start().starts_with(code)), "{code}: {codes}");
    }
}

/// Records each write that reaches it: a streamed output arrives in several writes, one
/// buffered to the end in one.
#[derive(Default)]
struct Chunks(Vec<usize>);

impl Write for Chunks {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.push(buf.len());
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn sweep_and_csv_rows_reach_the_output_as_each_completes() {
    for (a, rows) in [
        (&["sweep", "hotLoop_unrelatedMetaClassChurn", "--param", "churn_every=10,100,1000"][..], 3),
        (&["sweep", "hotLoop_unrelatedMetaClassChurn", "--param", "churn_every=10,100,1000", "--format", "csv"][..], 3),
        (&["run", "hotLoop_unrelatedMetaClassChurn", "--policy", "global,exact,ideal", "--format", "csv"][..], 3),
    ] {
        let mut chunks = Chunks::default();
        assert_eq!(run(&args(a), &mut chunks, &mut io::sink()), 0, "{a:?}");
        // Each row in its own write (the header goes with the first or before it).
        assert!(chunks.0.len() >= rows, "{a:?}: {:?}", chunks.0);
    }
}
