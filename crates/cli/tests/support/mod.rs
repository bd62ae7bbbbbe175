//! What the CLI's integration tests share: files they write, removed when the test ends.

/// A file written for one test, removed when it goes out of scope (when the test passes or
/// panics), so repeated runs leave nothing in the temporary directory.
pub struct TempFile(String);

impl std::ops::Deref for TempFile {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for TempFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Write `bytes` to a file named after `name` and this test process in the temporary directory.
pub fn temp_file(name: &str, bytes: impl AsRef<[u8]>) -> TempFile {
    let path = std::env::temp_dir().join(format!("blast-test-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    TempFile(path.to_string_lossy().into_owned())
}
