//! Hand-made raw lanes for the Mind tests: (session, role, part) steps in the plugin's lane
//! format.
#![allow(dead_code)] // each test file uses its own share

use serde_json::json;
use std::collections::HashMap;

/// A lane of one or more sessions built from (session, role, part) steps.
pub fn lane(steps: &[(&str, &str, serde_json::Value)]) -> String {
    let mut out = String::new();
    let mut last: HashMap<&str, (String, &str)> = HashMap::new();
    for (n, (session, role, body)) in steps.iter().enumerate() {
        let t = 1_000_000 + n as i64 * 1000;
        let msg = match last.get(session) {
            Some((id, r)) if r == role => id.clone(),
            _ => {
                let id = format!("msg_{n:05}");
                out += &json!({"v":1,"seq":n,"t":t,"kind":"message","info":{"id":id,"sessionID":session,"role":role,"time":{"created":t},"agent":"build"}}).to_string();
                out.push('\n');
                last.insert(session, (id.clone(), role));
                id
            }
        };
        let mut part = body.clone();
        part["id"] = json!(format!("prt_{n:05}"));
        part["sessionID"] = json!(session);
        part["messageID"] = json!(msg);
        out += &json!({"v":1,"seq":n,"t":t,"kind":"part","part":part}).to_string();
        out.push('\n');
    }
    out
}

pub fn text(t: &str) -> serde_json::Value {
    json!({"type":"text","text":t})
}

pub fn bash(cmd: &str, out: &str, exit: i64) -> serde_json::Value {
    json!({"type":"tool","tool":"bash","callID":"c","state":{"status":"completed","input":{"command":cmd},"output":out,"metadata":{"exit":exit}}})
}

pub fn edit(path: &str) -> serde_json::Value {
    json!({"type":"tool","tool":"edit","callID":"c","state":{"status":"completed","input":{"filePath":path},"output":"ok"}})
}
