//! The published figures the engine is calibrated against, shipped with it as data.
//!
//! Each table is a CSV file in `crates/engine/data/` whose comment lines (`#`) cite its source
//! and say what was measured. The files are compiled in (`include_str!`) and parsed here into
//! typed rows; `calibrate` and the presets read the figures only through this module, so the
//! numbers live in exactly one place and a test checks that what calibration compares with is
//! what the files say.

use std::fmt;
use std::sync::OnceLock;

use serde::Serialize;

use crate::policy::Policy;

/// One published JMH row of ScopedInvalidationBench (ops/ms): before = global, after = exact.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Published {
    pub before: f64,
    pub before_err: f64,
    pub after: f64,
    pub after_err: f64,
}

impl Published {
    /// The published figure and its error half-width for the policy that each side of the
    /// change implemented: the code before GROOVY-12191 had one global switch point, the code
    /// after it scopes to the exact class. Other policies were never measured.
    pub fn for_policy(&self, policy: Policy) -> Option<(f64, f64)> {
        match policy {
            Policy::Global => Some((self.before, self.before_err)),
            Policy::Exact => Some((self.after, self.after_err)),
            _ => None,
        }
    }
}

/// A row of `groovy_scoped_invalidation_bench.csv`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroovyRow {
    pub benchmark: String,
    pub published: Published,
}

/// A row of `jdk_record_deserialization.csv` (us/op).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RecordRow {
    pub variant: String,
    pub length: u64,
    pub classes_us: f64,
    pub records_us: f64,
}

/// A row of `jdk_shared_arena_close.csv` (us/op per thread role).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArenaGateRow {
    pub gate: String,
    pub closing_us: f64,
    pub memory_segment_access_us: f64,
    pub other_access_us: f64,
}

/// A row of `jdk_shared_arena_scaling.csv`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArenaScalingRow {
    pub threads: u64,
    pub shared_access_us: f64,
}

/// A row of `ignite_descriptor_cache.csv` (ns/op).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DescriptorRow {
    pub value: String,
    pub good_to_binary: f64,
    pub broken_to_binary: f64,
    pub good_put: f64,
    pub broken_put: f64,
    pub good_get: f64,
    pub broken_get: f64,
}

/// A row of `ignite_descriptor_cache_fixed.csv` (ns/op).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DescriptorFixedRow {
    pub value: String,
    pub fixed_to_binary: f64,
    pub fixed_put: f64,
    pub fixed_get: f64,
}

/// A row of `groovy24_sweeps.csv`: Groovy 2.4 (`--indy`) measured on this project's machine,
/// ns per op (one loop of `iterations` iterations) over every timed op of every JVM fork (for
/// `length`, op `param` + 1 of every fresh loop).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepRow {
    /// `density`, `sites`, `burst`, `body`, `poly` or `length` (see `probes/groovy/sweeps.groovy`).
    pub sweep: String,
    pub param: u64,
    pub iterations: u64,
    pub forks: u32,
    /// Timed ops over all forks, each fork after `warmup` untimed ops.
    pub reps: u32,
    pub warmup: u32,
    pub min_ns: f64,
    pub median_ns: f64,
    pub max_ns: f64,
    pub iqr_rel: f64,
}

/// Every shipped table, parsed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reference {
    pub groovy: Vec<GroovyRow>,
    pub records: Vec<RecordRow>,
    pub arena_gates: Vec<ArenaGateRow>,
    pub arena_scaling: Vec<ArenaScalingRow>,
    pub descriptor: Vec<DescriptorRow>,
    pub descriptor_fixed: Vec<DescriptorFixedRow>,
    pub groovy24_sweeps: Vec<SweepRow>,
}

/// The data files, by name, as compiled in.
pub const FILES: [(&str, &str); 7] = [
    ("groovy_scoped_invalidation_bench.csv", include_str!("../data/groovy_scoped_invalidation_bench.csv")),
    ("jdk_record_deserialization.csv", include_str!("../data/jdk_record_deserialization.csv")),
    ("jdk_shared_arena_close.csv", include_str!("../data/jdk_shared_arena_close.csv")),
    ("jdk_shared_arena_scaling.csv", include_str!("../data/jdk_shared_arena_scaling.csv")),
    ("ignite_descriptor_cache.csv", include_str!("../data/ignite_descriptor_cache.csv")),
    ("ignite_descriptor_cache_fixed.csv", include_str!("../data/ignite_descriptor_cache_fixed.csv")),
    ("groovy24_sweeps.csv", include_str!("../data/groovy24_sweeps.csv")),
];

/// What is wrong with a data file, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReferenceError {
    pub file: &'static str,
    /// 1-based line, `None` for a problem with the whole file (no header).
    pub line: Option<usize>,
    pub kind: ReferenceErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReferenceErrorKind {
    NoHeader,
    MissingColumn(&'static str),
    WrongCellCount { expected: usize, found: usize },
    NotANumber { column: &'static str, text: String },
}

impl fmt::Display for ReferenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: ", self.file)?,
            None => write!(f, "{}: ", self.file)?,
        }
        match &self.kind {
            ReferenceErrorKind::NoHeader => write!(f, "no header line"),
            ReferenceErrorKind::MissingColumn(c) => write!(f, "no column `{c}`"),
            ReferenceErrorKind::WrongCellCount { expected, found } => write!(f, "{found} cells, the header has {expected}"),
            ReferenceErrorKind::NotANumber { column, text } => write!(f, "`{text}` in column `{column}` is not a number"),
        }
    }
}

impl std::error::Error for ReferenceError {}

/// One CSV table: a header and rows of cells, each row with its line number.
struct Table {
    file: &'static str,
    header: Vec<&'static str>,
    rows: Vec<(usize, Vec<&'static str>)>,
}

impl Table {
    fn parse(file: &'static str, text: &'static str) -> Result<Table, ReferenceError> {
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
        let (_, header) = lines.next().ok_or(ReferenceError { file, line: None, kind: ReferenceErrorKind::NoHeader })?;
        let header: Vec<&str> = header.split(',').map(str::trim).collect();
        let mut rows = Vec::new();
        for (line, l) in lines {
            let cells: Vec<&str> = l.split(',').map(str::trim).collect();
            if cells.len() != header.len() {
                return Err(ReferenceError { file, line: Some(line), kind: ReferenceErrorKind::WrongCellCount { expected: header.len(), found: cells.len() } });
            }
            rows.push((line, cells));
        }
        Ok(Table { file, header, rows })
    }

    fn column(&self, name: &'static str) -> Result<usize, ReferenceError> {
        self.header.iter().position(|h| *h == name).ok_or(ReferenceError { file: self.file, line: None, kind: ReferenceErrorKind::MissingColumn(name) })
    }

    /// Reads every row with `read`, which gets a cell reader for that row.
    fn rows<T>(&self, mut read: impl FnMut(&Cells) -> Result<T, ReferenceError>) -> Result<Vec<T>, ReferenceError> {
        self.rows.iter().map(|(line, cells)| read(&Cells { table: self, line: *line, cells })).collect()
    }
}

struct Cells<'t> {
    table: &'t Table,
    line: usize,
    cells: &'t [&'static str],
}

impl Cells<'_> {
    /// The cell of `column` in this row.
    fn cell(&self, column: &'static str) -> Result<&'static str, ReferenceError> {
        Ok(self.cells[self.table.column(column)?])
    }

    fn text(&self, column: &'static str) -> Result<String, ReferenceError> {
        Ok(self.cell(column)?.to_string())
    }

    fn number<T: std::str::FromStr>(&self, column: &'static str) -> Result<T, ReferenceError> {
        let text = self.cell(column)?;
        text.parse().map_err(|_| self.not_a_number(column, text))
    }

    /// A decimal cell (`0.00243`) read without `str::parse::<f64>`, whose tables are ~10 KiB of
    /// a browser bundle: as an [`expect::spec::Decimal`](crate::expect::spec::Decimal), its
    /// digits over a power of ten. With fewer than 2^53 units that one division of two exact
    /// doubles is the correctly rounded value, so the same bits as `parse` (the shipped cells
    /// are checked against it); a longer cell is refused as not a number.
    fn decimal(&self, column: &'static str) -> Result<f64, ReferenceError> {
        let text = self.cell(column)?;
        match text.parse::<crate::expect::spec::Decimal>() {
            Ok(d) if d.units < 1 << f64::MANTISSA_DIGITS => Ok(d.value()),
            _ => Err(self.not_a_number(column, text)),
        }
    }

    fn not_a_number(&self, column: &'static str, text: &str) -> ReferenceError {
        ReferenceError { file: self.table.file, line: Some(self.line), kind: ReferenceErrorKind::NotANumber { column, text: text.to_string() } }
    }
}

impl Reference {
    /// Parses the shipped files; an error names the file and line.
    pub fn parse() -> Result<Reference, ReferenceError> {
        let table = |i: usize| Table::parse(FILES[i].0, FILES[i].1);
        Ok(Reference {
            groovy: parse_groovy()?,
            records: table(1)?.rows(|c| {
                Ok(RecordRow {
                    variant: c.text("variant")?,
                    length: c.number("length")?,
                    classes_us: c.number("classes_us")?,
                    records_us: c.number("records_us")?,
                })
            })?,
            arena_gates: table(2)?.rows(|c| {
                Ok(ArenaGateRow {
                    gate: c.text("gate")?,
                    closing_us: c.number("closing_us")?,
                    memory_segment_access_us: c.number("memory_segment_access_us")?,
                    other_access_us: c.number("other_access_us")?,
                })
            })?,
            arena_scaling: table(3)?.rows(|c| Ok(ArenaScalingRow { threads: c.number("threads")?, shared_access_us: c.number("shared_access_us")? }))?,
            descriptor: table(4)?.rows(|c| {
                Ok(DescriptorRow {
                    value: c.text("value")?,
                    good_to_binary: c.number("good_to_binary")?,
                    broken_to_binary: c.number("broken_to_binary")?,
                    good_put: c.number("good_put")?,
                    broken_put: c.number("broken_put")?,
                    good_get: c.number("good_get")?,
                    broken_get: c.number("broken_get")?,
                })
            })?,
            descriptor_fixed: table(5)?.rows(|c| {
                Ok(DescriptorFixedRow {
                    value: c.text("value")?,
                    fixed_to_binary: c.number("fixed_to_binary")?,
                    fixed_put: c.number("fixed_put")?,
                    fixed_get: c.number("fixed_get")?,
                })
            })?,
            groovy24_sweeps: table(6)?.rows(|c| {
                Ok(SweepRow {
                    sweep: c.text("sweep")?,
                    param: c.number("param")?,
                    iterations: c.number("iterations")?,
                    forks: c.number("forks")?,
                    reps: c.number("reps")?,
                    warmup: c.number("warmup")?,
                    min_ns: c.number("min_ns")?,
                    median_ns: c.number("median_ns")?,
                    max_ns: c.number("max_ns")?,
                    iqr_rel: c.number("iqr_rel")?,
                })
            })?,
        })
    }

    /// The shipped tables, parsed once. They are part of the build and a test parses them, so
    /// a failure here is a bug in `crates/engine/data/`, not bad input.
    pub fn get() -> &'static Reference {
        static PARSED: OnceLock<Reference> = OnceLock::new();
        PARSED.get_or_init(|| Reference::parse().unwrap_or_else(|e| panic!("shipped reference data: {e}")))
    }
}

/// The ScopedInvalidationBench table (the first file), which the presets' published figures
/// and the expectations read.
fn parse_groovy() -> Result<Vec<GroovyRow>, ReferenceError> {
    Table::parse(FILES[0].0, FILES[0].1)?.rows(|c| {
        Ok(GroovyRow {
            benchmark: c.text("benchmark")?,
            published: Published {
                before: c.decimal("before_ops_per_ms")?,
                before_err: c.decimal("before_err")?,
                after: c.decimal("after_ops_per_ms")?,
                after_err: c.decimal("after_err")?,
            },
        })
    })
}

/// The ScopedInvalidationBench rows, parsed once on their own: the browser bundles (the page
/// and the engine worker) read only these, so they link neither the other six files nor
/// their parsers (`Reference::get` is for calibration and the CLI). A failure is a bug in
/// the shipped file, as for `Reference::get`.
pub fn groovy_rows() -> &'static [GroovyRow] {
    static PARSED: OnceLock<Vec<GroovyRow>> = OnceLock::new();
    PARSED.get_or_init(|| parse_groovy().unwrap_or_else(|e| panic!("shipped reference data: {e}")))
}

/// The published ScopedInvalidationBench row of a benchmark, if it has one.
pub fn groovy_row(benchmark: &str) -> Option<Published> {
    groovy_rows().iter().find(|r| r.benchmark == benchmark).map(|r| r.published)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_file_parses_into_complete_tables() {
        let r = Reference::parse().unwrap();
        assert_eq!(r.groovy.len(), 7);
        assert_eq!(r.records.len(), 9);
        assert_eq!(r.arena_gates.len(), 2);
        assert_eq!(r.arena_scaling.len(), 8);
        assert_eq!(r.descriptor.len(), 5);
        assert_eq!(r.descriptor_fixed.len(), 1);
        for sweep in ["density", "sites", "burst", "body", "poly"] {
            assert!(r.groovy24_sweeps.iter().filter(|s| s.sweep == sweep).count() >= 2, "{sweep}");
        }
        assert!(r.groovy24_sweeps.iter().all(|s| s.min_ns <= s.median_ns && s.median_ns <= s.max_ns && s.forks >= 1));
        let base = groovy_row("hotLoop_baseline").unwrap();
        assert_eq!((base.before, base.after), (3.847, 4.017));
        assert!(r.groovy.iter().all(|g| g.published.before > 0.0 && g.published.after > 0.0));
        // The page's own parse of the first file is the full parse's table.
        assert_eq!(groovy_rows(), &r.groovy[..]);
        assert_eq!(groovy_row("no such benchmark"), None);
    }

    #[test]
    fn bad_tables_name_file_line_and_column() {
        let e = Table::parse("t.csv", "# c\na,b\n1,2\n3\n").err().unwrap();
        assert_eq!(e.line, Some(4));
        assert_eq!(e.kind, ReferenceErrorKind::WrongCellCount { expected: 2, found: 1 });
        let t = Table::parse("t.csv", "a,b\n1,x\n").unwrap();
        let e = t.rows(|c| c.number::<f64>("b")).err().unwrap();
        assert_eq!(e.to_string(), "t.csv:2: `x` in column `b` is not a number");
        assert_eq!(t.column("zz").err().unwrap().kind, ReferenceErrorKind::MissingColumn("zz"));
        assert_eq!(Table::parse("t.csv", "# only comments\n").err().unwrap().kind, ReferenceErrorKind::NoHeader);
    }

    #[test]
    fn decimal_cells_read_as_the_bits_parse_gives_and_others_are_not_numbers() {
        let groovy = Table::parse(FILES[0].0, FILES[0].1).unwrap();
        let columns = ["before_ops_per_ms", "before_err", "after_ops_per_ms", "after_err"];
        let pairs = groovy.rows(|c| columns.iter().map(|&col| Ok((c.decimal(col)?, c.number::<f64>(col)?))).collect::<Result<Vec<_>, _>>()).unwrap();
        assert_eq!(pairs.len(), 7);
        for (read, parsed) in pairs.into_iter().flatten() {
            assert_eq!(read.to_bits(), parsed.to_bits(), "{read} against {parsed}");
        }
        // Hard cases for a division: the nearest doubles of these sit close to a rounding tie.
        let t = Table::parse("t.csv", "x\n0.1\n0.3\n2.675\n9007199254.740991\n1.000000000001\n").unwrap();
        for (read, parsed) in t.rows(|c| Ok((c.decimal("x")?, c.number::<f64>("x")?))).unwrap() {
            assert_eq!(read.to_bits(), parsed.to_bits(), "{read} against {parsed}");
        }
        for bad in ["1e3", "9007199254.740993", "-1", "0.1234567890123", "x"] {
            let t = Table::parse("t.csv", &*format!("x\n{bad}\n").leak()).unwrap();
            assert_eq!(t.rows(|c| c.decimal("x")).unwrap_err().to_string(), format!("t.csv:2: `{bad}` in column `x` is not a number"));
        }
    }

    #[test]
    fn published_figures_belong_to_global_and_exact_only() {
        let p = Published { before: 1.0, before_err: 0.1, after: 2.0, after_err: 0.2 };
        assert_eq!(p.for_policy(Policy::Global), Some((1.0, 0.1)));
        assert_eq!(p.for_policy(Policy::Exact), Some((2.0, 0.2)));
        assert_eq!(p.for_policy(Policy::Hierarchy), None);
    }
}
