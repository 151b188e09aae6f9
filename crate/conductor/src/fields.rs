//! Typed reading of JSON objects with messages that name the field: used for the state file
//! (tolerant: missing fields default, unknown fields are left for the caller to keep) and for
//! requests. Fields are taken out of the map, so what remains is what was not understood.

use serde_json::{Map, Value};

/// A JSON object being read, with the path used in messages (`instances[2]`).
pub(crate) struct Fields {
    map: Map<String, Value>,
    path: String,
}

/// The JSON type of a value, for messages.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

impl Fields {
    /// Reads `value` as an object; the error names `path` and what was found instead.
    pub(crate) fn new(value: Value, path: &str) -> Result<Fields, String> {
        match value {
            Value::Object(map) => Ok(Fields {
                map,
                path: path.to_string(),
            }),
            other => Err(format!(
                "{path}: expected an object, found {}",
                kind(&other)
            )),
        }
    }

    fn name(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    fn wrong(&self, key: &str, want: &str, found: &Value) -> String {
        format!("{}: expected {want}, found {}", self.name(key), kind(found))
    }

    /// The raw value of `key` (absent and `null` are both `None`).
    pub(crate) fn take(&mut self, key: &str) -> Option<Value> {
        self.map.remove(key).filter(|v| !v.is_null())
    }

    /// A string field.
    pub(crate) fn string(&mut self, key: &str) -> Result<Option<String>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.wrong(key, "a string", &other)),
        }
    }

    /// A string field that may also be written as a number (an opaque token such as a
    /// process start time); a number is kept as its JSON text.
    pub(crate) fn token(&mut self, key: &str) -> Result<Option<String>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(other) => Err(self.wrong(key, "a string", &other)),
        }
    }

    /// A list of strings (absent: empty).
    pub(crate) fn strings(&mut self, key: &str) -> Result<Vec<String>, String> {
        match self.take(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .into_iter()
                .enumerate()
                .map(|(i, item)| match item {
                    Value::String(s) => Ok(s),
                    other => Err(format!(
                        "{}[{i}]: expected a string, found {}",
                        self.name(key),
                        kind(&other)
                    )),
                })
                .collect(),
            Some(other) => Err(self.wrong(key, "a list of strings", &other)),
        }
    }

    /// A list of values (absent: empty).
    pub(crate) fn list(&mut self, key: &str) -> Result<Vec<Value>, String> {
        match self.take(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(self.wrong(key, "a list", &other)),
        }
    }

    /// An object field.
    pub(crate) fn object(&mut self, key: &str) -> Result<Option<Map<String, Value>>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Object(map)) => Ok(Some(map)),
            Some(other) => Err(self.wrong(key, "an object", &other)),
        }
    }

    /// A non-negative whole number.
    pub(crate) fn count(&mut self, key: &str) -> Result<Option<u64>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Number(n)) => match n.as_u64() {
                Some(v) => Ok(Some(v)),
                None => Err(format!(
                    "{}: expected a whole number >= 0, found {n}",
                    self.name(key)
                )),
            },
            Some(other) => Err(self.wrong(key, "a number", &other)),
        }
    }

    /// A boolean field.
    pub(crate) fn boolean(&mut self, key: &str) -> Result<Option<bool>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(other) => Err(self.wrong(key, "true or false", &other)),
        }
    }

    /// The path of this object with `key` appended, for nested messages.
    pub(crate) fn child_path(&self, key: &str) -> String {
        self.name(key)
    }

    /// The fields not taken: unknown fields, kept as they are.
    pub(crate) fn rest(self) -> Map<String, Value> {
        self.map
    }
}
