//! What both wasm boundaries (`wasm`, `wasm_workflow`) share: the start hook and the
//! conversions of errors and results. No decisions here.

use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// A JS `Error` carrying a stable `code` the shim branches on (never on message text).
pub(crate) fn js_error(code: &str, message: &str) -> JsValue {
    let error = js_sys::Error::new(message);
    // Setting a property on a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(&error, &"code".into(), &code.into());
    error.into()
}

/// A config problem as a JS `Error` with `code`, `file`, `path`, `problem` and `fix`.
pub(crate) fn config_error(e: &nso_workflow::config::ConfigError) -> JsValue {
    let error = js_error(e.code, &e.to_string());
    let problem = format!("{}: {}: {}", e.file, e.path, e.problem);
    for (key, value) in [
        ("file", &e.file),
        ("path", &e.path),
        ("fix", &e.fix),
        ("problem", &problem),
    ] {
        let _ = js_sys::Reflect::set(&error, &key.into(), &value.as_str().into());
    }
    error
}

/// A result as JSON text (the shim parses it only when it needs the fields).
pub(crate) fn json<T: Serialize>(value: &T) -> Result<String, JsValue> {
    serde_json::to_string(value).map_err(|e| js_error("internal", &e.to_string()))
}
