//! The JSON form of a scenario, decoded strictly: every model type refuses a field it does not
//! know (`#[serde(deny_unknown_fields)]` in `model` and `expect::spec`), so a typo such as
//! `"parnet"` is an error instead of a silently dropped field, and every decoding error names
//! its place twice: the text position (`line:col`) and the path into the model
//! (`classes[1]: unknown field `parnet`, expected one of ...`), tracked by
//! `serde_path_to_error` while decoding. A statement (`{"stmt": "loop", ..}`) is decoded here by
//! hand, so the path reaches inside nested bodies (`op[0].body[1]`).

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

use crate::scenario::{Counted, Event, Every, Name, Scenario, Stmt, Use};
use crate::validate::ScenarioError;

mod counting;

/// Decode (not validate) a scenario's JSON: refused at the first element past a cap, counted
/// before anything is built ([`refuse_past_caps`]).
pub fn decode_scenario(src: &str) -> Result<Scenario, ScenarioError> {
    refuse_past_caps(src.as_bytes())?;
    let mut de = serde_json::Deserializer::from_str(src);
    let s = serde_path_to_error::deserialize(&mut de).map_err(|e| error(&e.path().to_string(), e.into_inner()))?;
    de.end().map_err(|e| error(".", e))?;
    Ok(s)
}

/// The refusal of the scenario JSON read from `r` at its first list element past a cap, counted
/// without building anything (`counting`); `Ok` when it passes none, or stops before at
/// anything else (left to the decode). Placed as serde_json places an error on a reader (one
/// character further than on a `str`: it counts the character it peeked), the same from a file
/// and from its text.
pub fn refuse_past_caps(r: impl std::io::Read) -> Result<(), ScenarioError> {
    match counting::walk(r) {
        Some(c) => Err(ScenarioError::at_text(c.line.max(1), c.col.max(1), format!("{}: {}", c.path, c.message))),
        None => Ok(()),
    }
}

/// A statement's kind, its `stmt` field.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Kind {
    Call,
    Loop,
    Every,
    Repeat,
    Use,
    Event,
}

/// The fields of a call statement.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallFields {
    site: Name,
}

/// A statement is `{"stmt": KIND, ..the kind's fields}`. serde's derive for such a tagged
/// enum reads the whole object into a buffer before it knows the kind: a loop of 10^6 calls
/// held twice, and the path of an error inside it lost. When `stmt` comes first (as every
/// scenario written by `blast` or the page has it), the other fields are read straight into
/// the kind's struct; otherwise the object is read whole, then decoded.
impl<'de> Deserialize<'de> for Stmt {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Stmt, D::Error> {
        d.deserialize_map(StmtVisitor)
    }
}

struct StmtVisitor;

impl<'de> Visitor<'de> for StmtVisitor {
    type Value = Stmt;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a statement: an object with a `stmt` field")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Stmt, A::Error> {
        let first: Option<std::borrow::Cow<'de, str>> = map.next_key()?;
        match first {
            Some(key) if key == "stmt" => {
                let kind: Kind = map.next_value()?;
                fields(kind, MapAccessDeserializer::new(map))
            }
            Some(key) => {
                // `stmt` later in the object: read it whole, then decode.
                let mut object = serde_json::Map::new();
                let value: serde_json::Value = map.next_value()?;
                object.insert(key.into_owned(), value);
                while let Some((k, v)) = map.next_entry::<String, serde_json::Value>()? {
                    object.insert(k, v);
                }
                let kind = object.remove("stmt").ok_or_else(|| de::Error::missing_field("stmt"))?;
                let kind = Kind::deserialize(kind).map_err(de::Error::custom)?;
                fields(kind, serde_json::Value::Object(object)).map_err(de::Error::custom)
            }
            None => Err(de::Error::missing_field("stmt")),
        }
    }
}

/// The rest of a statement of `kind`, from `d`.
fn fields<'de, D: Deserializer<'de>>(kind: Kind, d: D) -> Result<Stmt, D::Error> {
    Ok(match kind {
        Kind::Call => Stmt::Call { site: CallFields::deserialize(d)?.site },
        Kind::Loop => Stmt::Loop(Box::new(Counted::deserialize(d)?)),
        Kind::Every => Stmt::Every(Box::new(Every::deserialize(d)?)),
        Kind::Repeat => Stmt::Repeat(Box::new(Counted::deserialize(d)?)),
        Kind::Use => Stmt::Use(Box::new(Use::deserialize(d)?)),
        Kind::Event => Stmt::Event(Box::new(Event::deserialize(d)?)),
    })
}

/// `line:col: path: message` (no path at the top level).
fn error(path: &str, e: serde_json::Error) -> ScenarioError {
    // serde_json's message ends with its own " at line L column C"; the place is kept as numbers.
    let message = e.to_string();
    let message = message.split(" at line ").next().unwrap_or(&message);
    // An unknown field's path ends with the field itself: the place is the object holding it.
    let path = match path.rsplit_once('.') {
        Some((object, field)) if message.starts_with(&format!("unknown field `{field}`")) => object,
        None if message.starts_with(&format!("unknown field `{path}`")) => ".",
        _ => path,
    };
    let message = if path == "." { message.to_string() } else { format!("{path}: {message}") };
    ScenarioError::at_text(e.line().max(1), e.column().max(1), message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(json: &str) -> String {
        decode_scenario(json).expect_err("refused").to_string()
    }

    #[test]
    fn an_unknown_field_is_refused_with_its_path_and_place() {
        let json = "{\"classes\": [{\"name\": \"A\"},\n {\"name\": \"B\", \"parnet\": \"A\"}]}";
        let e = refused(json);
        assert!(e.starts_with("2:"), "{e}");
        assert!(e.contains("classes[1]: unknown field `parnet`, expected one of `name`, `parent`"), "{e}");
    }

    #[test]
    fn unknown_fields_are_refused_at_every_level_of_the_model() {
        let cases = [
            (r#"{"nmae": "x"}"#, "unknown field `nmae`"),
            (r#"{"measure": {"ops": 1, "warmup_ops": 1, "opz": 2}}"#, "measure: unknown field `opz`"),
            (r#"{"sites": [{"name": "s", "class": "A", "method": "m", "mixx": [1]}]}"#, "sites[0]: unknown field `mixx`"),
            (r#"{"categories": [{"name": "C", "methods": [{"class": "A", "method": "m", "x": 1}]}]}"#, "categories[0].methods[0]: unknown field `x`"),
            (r#"{"classes": [{"name": "A", "costs": [{"method": "m", "ns": 1, "us": 2}]}]}"#, "classes[0].costs[0]: unknown field `us`"),
            (r#"{"op": [{"stmt": "loop", "count": 1, "body": [], "times": 2}]}"#, "op[0]: unknown field `times`"),
            (
                r#"{"op": [{"stmt": "loop", "count": 1, "body": [{"stmt": "every", "period": 2, "body": [], "ofset": 1}]}]}"#,
                "op[0].body[0]: unknown field `ofset`",
            ),
            (
                r#"{"op": [{"stmt": "loop", "count": 1, "body": [{"stmt": "call", "site": "s"}, {"stmt": "cal", "site": "s"}]}]}"#,
                "op[0].body[1].stmt: unknown variant `cal`",
            ),
            (r#"{"op": [{"count": 1, "stmt": "loop", "body": [], "x": 0}]}"#, "op[0]: unknown field `x`"),
            (r#"{"op": [{"count": 1, "body": []}]}"#, "op[0]: missing field `stmt`"),
            (r#"{"setup": [{"stmt": "use", "category": "C", "body": [], "extra": 0}]}"#, "setup[0]: unknown field `extra`"),
            (r#"{"setup": [{"stmt": "event", "event": "write", "class": "A", "method": "m", "metod": "m"}]}"#, "setup[0]: unknown field `metod`"),
            (r#"{"op": [{"stmt": "call", "site": "s", "count": 3}]}"#, "op[0]: unknown field `count`"),
        ];
        for (json, expected) in cases {
            let e = refused(json);
            assert!(e.contains(expected), "{json}: {e}");
        }
    }

    #[test]
    fn every_known_field_still_decodes() {
        let json = r#"{"name": "n", "semantics": "live", "measure": {"warmup_ops": 1, "ops": 2},
            "classes": [{"name": "A", "parent": null, "methods": ["m"], "metaclass": "expando", "costs": [{"method": "m", "ns": 5}]}],
            "categories": [{"name": "C", "methods": [{"class": "A", "method": "m"}]}],
            "sites": [{"name": "s", "class": "A", "method": "m", "others": [], "mix": []}],
            "setup": [{"stmt": "event", "event": "load", "class": "B", "parent": "A", "methods": []}],
            "before_op": [{"stmt": "repeat", "count": 2, "body": [{"stmt": "event", "event": "invalidate-all"}]}],
            "op": [{"stmt": "loop", "count": 3, "body": [{"stmt": "every", "period": 2, "offset": 1, "body": []},
                   {"stmt": "use", "category": "C", "body": []}, {"stmt": "call", "site": "s"}]}]}"#;
        let s = decode_scenario(json).unwrap();
        assert_eq!((s.classes.len(), s.sites.len(), s.op.len()), (1, 1, 1));
    }

    #[test]
    fn a_statement_reads_the_same_whatever_the_order_of_its_fields() {
        let first = decode_scenario(r#"{"op": [{"stmt": "loop", "count": 3, "body": [{"stmt": "call", "site": "s"}]}]}"#).unwrap();
        let later = decode_scenario(r#"{"op": [{"body": [{"site": "s", "stmt": "call"}], "count": 3, "stmt": "loop"}]}"#).unwrap();
        assert_eq!(first, later);
        assert_eq!(first.op, vec![Stmt::looped(3, vec![Stmt::Call { site: "s".into() }])]);
    }

    #[test]
    fn trailing_text_and_syntax_errors_keep_their_place() {
        assert!(refused("{} x").starts_with("1:4: trailing characters"), "{}", refused("{} x"));
        assert!(refused("{\n  \"classes\": [1,]\n}").starts_with("2:"), "{}", refused("{\n  \"classes\": [1,]\n}"));
    }
}
