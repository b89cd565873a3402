//! JSON text for a serde value, without serde_json: the page's "Results
//! JSON" download. It parses to what `lbsim run --format json` (serde_json)
//! prints; a test holds every preset's report to that. Only what the
//! report's types use is written: structs, sequences, options, strings,
//! numbers, booleans and unit variants. Numbers are Rust's shortest
//! round-tripping form, a float that is not finite is `null`.

use alloc::string::String;
use core::fmt::{self, Write};

use serde::ser::{self, Serialize};

/// `value` as JSON, one member or element per line, indented by two.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, Unsupported> {
    let mut json = Json { out: String::new(), depth: 0 };
    value.serialize(&mut json)?;
    Ok(json.out)
}

/// A value the writer does not write (none in a report).
#[derive(Debug)]
pub struct Unsupported;

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value JSON text is not written for")
    }
}

impl core::error::Error for Unsupported {}

impl ser::Error for Unsupported {
    fn custom<M: fmt::Display>(_: M) -> Self {
        Unsupported
    }
}

struct Json {
    out: String,
    depth: usize,
}

impl Json {
    fn line(&mut self) {
        self.out.push('\n');
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
    }

    fn open(&mut self, bracket: char) -> Compound<'_> {
        self.out.push(bracket);
        self.depth += 1;
        Compound { json: self, first: true }
    }

    fn string(&mut self, s: &str) {
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(self.out, "\\u{:04x}", c as u32);
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    fn number(&mut self, v: impl fmt::Display) -> Result<(), Unsupported> {
        write!(self.out, "{v}").map_err(|_| Unsupported)
    }
}

struct Compound<'a> {
    json: &'a mut Json,
    first: bool,
}

impl Compound<'_> {
    fn next(&mut self) {
        if !self.first {
            self.json.out.push(',');
        }
        self.first = false;
        self.json.line();
    }

    fn close(self, bracket: char) -> Result<(), Unsupported> {
        self.json.depth -= 1;
        if !self.first {
            self.json.line();
        }
        self.json.out.push(bracket);
        Ok(())
    }
}

type Done = Result<(), Unsupported>;

impl<'a> ser::Serializer for &'a mut Json {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = ser::Impossible<(), Unsupported>;
    type SerializeTupleVariant = ser::Impossible<(), Unsupported>;
    type SerializeMap = ser::Impossible<(), Unsupported>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = ser::Impossible<(), Unsupported>;

    fn serialize_bool(self, v: bool) -> Done {
        self.out.push_str(if v { "true" } else { "false" });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Done {
        self.number(v)
    }
    fn serialize_i16(self, v: i16) -> Done {
        self.number(v)
    }
    fn serialize_i32(self, v: i32) -> Done {
        self.number(v)
    }
    fn serialize_i64(self, v: i64) -> Done {
        self.number(v)
    }
    fn serialize_u8(self, v: u8) -> Done {
        self.number(v)
    }
    fn serialize_u16(self, v: u16) -> Done {
        self.number(v)
    }
    fn serialize_u32(self, v: u32) -> Done {
        self.number(v)
    }
    fn serialize_u64(self, v: u64) -> Done {
        self.number(v)
    }
    fn serialize_f32(self, v: f32) -> Done {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Done {
        if v.is_finite() {
            self.number(v)
        } else {
            self.serialize_unit()
        }
    }
    fn serialize_char(self, v: char) -> Done {
        self.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Done {
        self.string(v);
        Ok(())
    }
    fn serialize_bytes(self, _: &[u8]) -> Done {
        Err(Unsupported)
    }
    fn serialize_none(self) -> Done {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Done {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Done {
        self.out.push_str("null");
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Done {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Done {
        self.string(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Done {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Done {
        Err(Unsupported)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'a>, Unsupported> {
        Ok(self.open('['))
    }
    fn serialize_tuple(self, _: usize) -> Result<Compound<'a>, Unsupported> {
        Ok(self.open('['))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Unsupported> {
        Err(Unsupported)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Unsupported> {
        Err(Unsupported)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Unsupported> {
        Err(Unsupported)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Compound<'a>, Unsupported> {
        Ok(self.open('{'))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Unsupported> {
        Err(Unsupported)
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        self.next();
        value.serialize(&mut *self.json)
    }
    fn end(self) -> Done {
        self.close(']')
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Done {
        self.close(']')
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Done {
        self.next();
        self.json.string(key);
        self.json.out.push_str(": ");
        value.serialize(&mut *self.json)
    }
    fn end(self) -> Done {
        self.close('}')
    }
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;
    use alloc::vec;

    use super::*;
    use crate::presets::PRESETS;
    use crate::report::Report;
    use crate::Scenario;

    /// serde_json reads the text back as the very report, for every preset
    /// (a fleet's series, caches, options, unit variants).
    #[test]
    fn every_presets_report_reads_back_through_serde_json() {
        for p in PRESETS {
            let report = crate::run(&Scenario { requests: 2_000, ..p.scenario() }).expect("valid");
            let text = to_string(&report).expect("a report is written");
            let back: Report = serde_json::from_str(&text).expect("valid JSON");
            assert_eq!(back, report, "{}", p.id);
        }
    }

    #[test]
    fn strings_are_escaped_and_floats_not_finite_are_null() {
        let text = to_string(&("a\"b\\c\n\u{1}é", vec![f64::NAN, 0.1, 1e21], Some(3u64), None::<u8>))
            .expect("written");
        let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(value[0], "a\"b\\c\n\u{1}é".to_string());
        assert_eq!(value[1], serde_json::json!([null, 0.1, 1e21]));
        assert_eq!(value[2], 3);
        assert!(value[3].is_null());
    }
}
