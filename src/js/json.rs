//! A minimal JSON writer for the documents that cross to JS (call metadata, errors, the
//! contract): objects and arrays with comma bookkeeping, strings escaped, int64 as numbers when JS
//! reads them exactly and as strings beyond, so that JS can make exact numbers or BigInts of them.

use std::fmt::Write;

/// Writes one JSON value into a `String`; `key` and `item` insert the commas.
///
/// Its methods are never inlined: copies of them at each of the metadata's and the live protocol's
/// many call sites made up 22 KB of the .wasm (300,471 bytes against 278,040), and they run per
/// field, not per record (a 1 KiB frame's decode call 2% slower, in separate processes).
pub(crate) struct JsonWriter<'a> {
    out: &'a mut String,
    /// Per open object or array: whether it already has a member.
    nonempty: Vec<bool>,
}

impl<'a> JsonWriter<'a> {
    pub fn new(out: &'a mut String) -> Self {
        JsonWriter {
            out,
            nonempty: Vec::new(),
        }
    }

    fn separate(&mut self) {
        if let Some(nonempty) = self.nonempty.last_mut() {
            if *nonempty {
                self.out.push(',');
            }
            *nonempty = true;
        }
    }

    /// Starts a member of the current object.
    #[inline(never)]
    pub fn key(&mut self, key: &str) -> &mut Self {
        self.separate();
        write_str(self.out, key);
        self.out.push(':');
        // the value that follows is not another member
        self.nonempty.push(false);
        self
    }

    /// Starts an element of the current array.
    #[inline(never)]
    pub fn item(&mut self) -> &mut Self {
        self.separate();
        self.nonempty.push(false);
        self
    }

    fn value_done(&mut self) {
        self.nonempty.pop();
    }

    #[inline(never)]
    pub fn begin_object(&mut self) -> &mut Self {
        self.out.push('{');
        self.nonempty.push(false);
        self
    }

    #[inline(never)]
    pub fn end_object(&mut self) -> &mut Self {
        self.nonempty.pop();
        self.out.push('}');
        self.value_done();
        self
    }

    #[inline(never)]
    pub fn begin_array(&mut self) -> &mut Self {
        self.out.push('[');
        self.nonempty.push(false);
        self
    }

    #[inline(never)]
    pub fn end_array(&mut self) -> &mut Self {
        self.nonempty.pop();
        self.out.push(']');
        self.value_done();
        self
    }

    /// A number (integers up to 2^53, which JS reads exactly).
    #[inline(never)]
    pub fn number(&mut self, v: impl itoa::Integer) -> &mut Self {
        self.out.push_str(itoa::Buffer::new().format(v));
        self.value_done();
        self
    }

    #[inline(never)]
    pub fn bool(&mut self, v: bool) -> &mut Self {
        self.out.push_str(if v { "true" } else { "false" });
        self.value_done();
        self
    }

    #[inline(never)]
    pub fn null(&mut self) -> &mut Self {
        self.out.push_str("null");
        self.value_done();
        self
    }

    #[inline(never)]
    pub fn string(&mut self, s: &str) -> &mut Self {
        write_str(self.out, s);
        self.value_done();
        self
    }

    pub fn opt_string(&mut self, s: Option<&str>) -> &mut Self {
        match s {
            Some(s) => self.string(s),
            None => self.null(),
        }
    }

    pub fn opt_number(&mut self, v: Option<impl itoa::Integer>) -> &mut Self {
        match v {
            Some(v) => self.number(v),
            None => self.null(),
        }
    }

    /// An int64 (or null): a number up to 2^53 - 1 in magnitude, which JSON.parse reads exactly,
    /// a decimal string beyond. Numbers because a string per value is most of what parsing the
    /// metadata of many partitions costs.
    #[inline(never)]
    pub fn int64(&mut self, v: Option<i64>) -> &mut Self {
        const MAX_EXACT: i64 = (1 << 53) - 1;
        match v {
            Some(v) if (-MAX_EXACT..=MAX_EXACT).contains(&v) => self.number(v),
            Some(v) => {
                let _ = write!(self.out, "\"{v}\"");
                self.value_done();
                self
            }
            None => self.null(),
        }
    }
}

#[inline(never)]
fn write_str(out: &mut String, s: &str) {
    out.push('"');
    // runs of bytes that need no escape are copied whole (the bytes escaped are ASCII, so every
    // cut falls on a character boundary)
    let mut run = 0;
    for (i, b) in s.bytes().enumerate() {
        let escaped = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[run..i]);
        if escaped.is_empty() {
            let _ = write!(out, "\\u{:04x}", b);
        } else {
            out.push_str(escaped);
        }
        run = i + 1;
    }
    out.push_str(&s[run..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_values_with_commas_and_escapes() {
        let mut s = String::new();
        let mut j = JsonWriter::new(&mut s);
        j.begin_object();
        j.key("a").number(1);
        j.key("b").begin_array();
        j.item().string("x\"y\n");
        j.item().int64(Some(-(1 << 60)));
        j.item().begin_object().end_object();
        j.end_array();
        j.key("c").opt_string(None);
        j.end_object();
        assert_eq!(
            s,
            r#"{"a":1,"b":["x\"y\u000a","-1152921504606846976",{}],"c":null}"#
        );
    }

    #[test]
    fn int64_is_a_number_while_js_reads_it_exactly() {
        let mut s = String::new();
        let mut j = JsonWriter::new(&mut s);
        j.begin_array();
        for v in [
            0,
            -1,
            (1 << 53) - 1,
            1 << 53,
            -(1 << 53) + 1,
            -(1 << 53),
            i64::MIN,
        ] {
            j.item().int64(Some(v));
        }
        j.end_array();
        assert_eq!(
            s,
            r#"[0,-1,9007199254740991,"9007199254740992",-9007199254740991,"-9007199254740992","-9223372036854775808"]"#
        );
    }

    #[test]
    fn escapes_between_multibyte_characters() {
        let mut s = String::new();
        write_str(&mut s, "é\u{1}ü\\\"日本\t");
        assert_eq!(s, r#""é\u0001ü\\\"日本\u0009""#);
        let mut empty = String::new();
        write_str(&mut empty, "");
        assert_eq!(empty, r#""""#);
    }
}
