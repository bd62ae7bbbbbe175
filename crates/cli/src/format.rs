//! The output formats a command can write (`--format`): their names, one spelling each.

/// An output format (`--format`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    Table,
    Json,
    Csv,
    Markdown,
    Dsl,
    /// JUnit XML (`blast check`), for CI systems that show test failures natively.
    Junit,
}

impl Format {
    pub const ALL: [Format; 6] = [Format::Table, Format::Json, Format::Csv, Format::Markdown, Format::Dsl, Format::Junit];

    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Markdown => "markdown",
            Format::Dsl => "dsl",
            Format::Junit => "junit",
        }
    }

    /// The format `name` spells (`md` is markdown's short name), if any.
    pub fn named(name: &str) -> Option<Format> {
        if name == "md" {
            return Some(Format::Markdown);
        }
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}
