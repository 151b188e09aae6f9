//! T0 transcripts: hand-written expectations for the fixtures in
//! `tests/fixtures/continuity/t0/`, real OpenCode 1.18.33 data from
//! `tests/fixtures/continuity/opencode/`, and the key property: the raw lane of a session
//! and the export of the same session give the same transcript.

mod rng;

use nso::continuity::events::{from_export, from_lane, Normalized, SessionEvents};
use nso::continuity::policy::T0Policy;
use nso::continuity::t0::{format_duration, format_size, render, T0};
use rng::Rng;
use serde_json::{json, Value};

const T0_DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/continuity/t0/"
);
const OPENCODE_DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/continuity/opencode/"
);

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{T0_DIR}{name}")).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn opencode(name: &str) -> String {
    std::fs::read_to_string(format!("{OPENCODE_DIR}{name}"))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn small_policy() -> T0Policy {
    let v: Value = serde_json::from_str(&fixture("small.policy.json")).unwrap();
    T0Policy::from_json(&v).unwrap()
}

fn only(n: &Normalized) -> &SessionEvents {
    assert_eq!(n.sessions.len(), 1, "{:?}", n.warnings);
    &n.sessions[0]
}

fn digest_json(t: &T0) -> Value {
    serde_json::to_value(&t.digest).unwrap()
}

const SMALL_ROOT: &str = "/home/dev/shop";

#[test]
fn small_export_gives_the_hand_written_transcript() {
    let n = from_export(&fixture("small.export.json"));
    assert!(n.warnings.is_empty(), "{:?}", n.warnings);
    let t = render(only(&n), &small_policy(), Some(SMALL_ROOT));
    assert_eq!(t.text, fixture("small.t0.md"));
    let expected: Value = serde_json::from_str(&fixture("small.digest.json")).unwrap();
    assert_eq!(digest_json(&t), expected);
    assert_eq!(t.session, "ses_t0small01");
    assert_eq!(t.stats.messages, 4);
    assert_eq!(t.stats.parts, 18);
    assert_eq!(t.stats.tool_calls, 8);
    assert_eq!(t.stats.tool_errors, 1);
    assert_eq!(t.stats.snippets, 1);
    assert_eq!(t.stats.output_bytes, 24 + 2356 + 33 + 78 + 68 + 24);
    assert_eq!(t.stats.text_bytes, t.text.len());
    // step-start, reasoning, step-finish, the unknown part type.
    assert_eq!(t.stats.dropped_parts, 4);
}

#[test]
fn small_lane_renders_byte_identical_to_the_export() {
    let lane = from_lane(&fixture("small.lane.jsonl"));
    let export = from_export(&fixture("small.export.json"));
    // The same events, but for the bash output the lane cut to 200 bytes.
    let (l, e) = (only(&lane), only(&export));
    assert_eq!(l.messages.len(), e.messages.len());
    assert_eq!(
        (&l.title, &l.parent, l.created),
        (&e.title, &e.parent, e.created)
    );
    let policy = small_policy();
    let a = render(only(&lane), &policy, Some(SMALL_ROOT));
    let b = render(only(&export), &policy, Some(SMALL_ROOT));
    assert_eq!(a, b);
    assert_eq!(a.text, fixture("small.t0.md"));
    // Every skipped line is named.
    let lines: Vec<&str> = lane
        .warnings
        .iter()
        .map(|w| w.split(':').next().unwrap())
        .collect();
    assert_eq!(
        lines,
        ["line 11", "line 16", "line 20", "line 25", "line 34"],
        "{:?}",
        lane.warnings
    );
    assert!(lane.warnings[0].contains("not JSON (truncated?) — skipped"));
    assert!(lane.warnings[1].contains("unknown kind \"todo.updated\""));
    assert!(lane.warnings[2].contains("version 2"));
    assert!(lane.warnings[3].contains("messageID"));
    assert!(lane.warnings[4].contains("not JSON"));
}

#[test]
fn default_policy_strips_outputs_and_reasoning() {
    let n = from_export(&fixture("small.export.json"));
    let t = render(only(&n), &T0Policy::default(), Some(SMALL_ROOT));
    assert!(t.text.contains("\npolicy: nso-t0 v1\n"));
    assert!(
        !t.text.contains("  | "),
        "no snippet without a policy entry"
    );
    assert!(!t.text.contains("look at the story"), "reasoning dropped");
    // Without the policy's extra key, `pin: 4711` is prose.
    assert!(t.text.contains("pin: 4711"));
    let keep = T0Policy {
        reasoning: true,
        ..T0Policy::default()
    };
    let t = render(only(&n), &keep, Some(SMALL_ROOT));
    assert!(t
        .text
        .contains("\n[reasoning] I should look at the story first.\n"));
    // Without a root, paths stay as written.
    let t = render(only(&n), &T0Policy::default(), None);
    assert!(t
        .text
        .contains(" targets=/home/dev/shop/src/cart.rs title=\"src/cart.rs\"\n"));
}

#[test]
fn export_banner_arrays_and_several_objects() {
    let text = fixture("small.export.json");
    let one = from_export(&text);
    let banner = from_export(&format!("Exporting session: ses_t0small01\n\n{text}"));
    assert_eq!(banner.sessions, one.sessions);
    assert_eq!(banner.warnings.len(), 1);
    assert!(banner.warnings[0].starts_with("lines 1-2:"));
    let array = from_export(&format!("[{text}, {text}]"));
    assert_eq!(array.sessions.len(), 2);
    assert_eq!(array.sessions[0], one.sessions[0]);
    let two = from_export(&format!("{text}\n{text}"));
    assert_eq!(two.sessions.len(), 2);
    let cut = from_export(&text[..text.len() / 2]);
    assert!(cut.sessions.is_empty());
    assert!(cut.warnings[0].contains("not JSON"), "{:?}", cut.warnings);
    assert!(!from_export("no json here").warnings.is_empty());
    assert!(!from_export("{\"info\": {}}").warnings.is_empty());
}

/// The session a lane record belongs to.
fn record_session(line: &str) -> String {
    let r: Value = serde_json::from_str(line).unwrap();
    let id = match r["kind"].as_str() {
        Some("session") => &r["info"]["id"],
        Some("message") => &r["info"]["sessionID"],
        _ => &r["part"]["sessionID"],
    };
    id.as_str().unwrap().to_string()
}

#[test]
fn interleaved_lane_keeps_sessions_apart() {
    let text = fixture("interleaved.lane.jsonl");
    let n = from_lane(&text);
    assert!(n.warnings.is_empty(), "{:?}", n.warnings);
    let ids: Vec<&str> = n.sessions.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["ses_int_a", "ses_int_b", "ses_int_sub"]);
    let policy = T0Policy::default();
    for s in &n.sessions {
        let t = render(s, &policy, Some("/srv/app"));
        assert_eq!(t.text, fixture(&format!("interleaved.{}.t0.md", s.id)));
        // Each session alone gives the same transcript.
        let alone: String = text
            .lines()
            .filter(|l| record_session(l) == s.id)
            .map(|l| format!("{l}\n"))
            .collect();
        let alone = from_lane(&alone);
        assert_eq!(render(only(&alone), &policy, Some("/srv/app")).text, t.text);
    }
    let sub = render(&n.sessions[2], &policy, Some("/srv/app"));
    assert_eq!(sub.digest.parent.as_deref(), Some("ses_int_a"));
    assert_eq!(
        serde_json::to_value(&sub.digest.tasks).unwrap(),
        json!([{
            "task": "build_20260301_login_x9y8z7",
            "kind": "contract",
            "relation": "completed",
            "evidence": [
                {"at": 0, "relation": "active", "where": "delegation prompt"},
                {"at": 2, "relation": "completed", "where": "nso_report_status (call_c2) → COMPLETED"}
            ]
        }])
    );
    assert_eq!(sub.digest.files_changed, ["src/login.rs"]);
    let a = render(&n.sessions[0], &policy, Some("/srv/app"));
    assert_eq!(
        serde_json::to_value(&a.digest.tasks).unwrap(),
        json!([{
            "task": "build_20260301_login_x9y8z7",
            "kind": "contract",
            "relation": "mentioned",
            "evidence": [{"at": 1, "relation": "mentioned", "where": "tool task (call_t1)"}]
        }])
    );
    let b = render(&n.sessions[1], &policy, Some("/srv/app"));
    assert_eq!(
        serde_json::to_value(&b.digest.tasks).unwrap(),
        json!([{
            "task": "todo:7",
            "kind": "todo",
            "relation": "mentioned",
            "evidence": [
                {"at": 0, "relation": "mentioned", "where": "user message 1"},
                {"at": 1, "relation": "mentioned", "where": "assistant message 2"}
            ]
        }])
    );
}

// ---------------------------------------------------------------------------------------------
// Real OpenCode 1.18.33 data

/// What the plugin appends for OpenCode's events (`{type, properties}` lines), with the
/// shim's cuts: outputs over `output_bytes` cut (full size in `nsoOutputBytes`), metadata
/// reduced to small scalars.
fn lane_from_events(events: &str, output_bytes: usize) -> String {
    let mut out = String::new();
    let mut seq = 0;
    for line in events.lines() {
        let e: Value = serde_json::from_str(line).unwrap();
        let p = &e["properties"];
        let (kind, key, body) = match e["type"].as_str().unwrap() {
            "session.created" | "session.updated" => ("session", "info", p["info"].clone()),
            "message.updated" => ("message", "info", p["info"].clone()),
            "message.part.updated" => ("part", "part", shim_part(p["part"].clone(), output_bytes)),
            _ => continue,
        };
        seq += 1;
        let mut r = json!({"v": 1, "seq": seq, "t": 0, "kind": kind});
        r[key] = body;
        out.push_str(&r.to_string());
        out.push('\n');
    }
    out
}

fn shim_part(mut part: Value, output_bytes: usize) -> Value {
    let Some(state) = part.get_mut("state").and_then(Value::as_object_mut) else {
        return part;
    };
    if let Some(o) = state
        .get("output")
        .and_then(Value::as_str)
        .map(str::to_string)
    {
        if o.len() > output_bytes {
            let mut end = output_bytes;
            while !o.is_char_boundary(end) {
                end -= 1;
            }
            state.insert("output".into(), json!(o[..end]));
            state.insert("nsoOutputBytes".into(), json!(o.len()));
        }
    }
    if let Some(meta) = state.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.retain(|_, v| match v {
            Value::String(s) => s.len() <= 1024,
            Value::Array(_) | Value::Object(_) => false,
            _ => true,
        });
    }
    part
}

const PROJECT: &str = "/tmp/nso-continuity/project";

#[test]
fn real_export_gives_a_compact_transcript() {
    let text = opencode("export-main.json");
    let n = from_export(&text);
    assert!(n.warnings.is_empty(), "{:?}", n.warnings);
    let s = only(&n);
    let t = render(s, &T0Policy::default(), Some(PROJECT));
    let tools: Vec<&str> = t
        .text
        .lines()
        .filter(|l| l.starts_with("[tool] "))
        .collect();
    assert_eq!(tools.len(), 5, "{}", t.text);
    assert!(tools[0].starts_with("[tool] write ok ") && tools[0].ends_with(" targets=notes.txt"));
    assert!(tools[1].contains(" exit=3 out=8B targets=- cmd=\"echo hi; echo oops >&2; exit 3\""));
    assert!(
        !tools[1].contains("title="),
        "the title repeats the command"
    );
    assert!(tools[2].starts_with("[tool] read ok "));
    assert!(tools[3].starts_with("[tool] edit ok "));
    // The big output: its size, never its text.
    let raw: Value = serde_json::from_str(&text).unwrap();
    let seq = raw["messages"][5]["parts"][1]["state"]["output"]
        .as_str()
        .unwrap();
    assert!(tools[4].contains(&format!(" exit=0 out={} ", format_size(seq.len() as u64))));
    assert!(!t.text.contains("198002"));
    assert!(t.text.len() * 20 < text.len());
    assert_eq!(t.digest.task.as_deref(), Some("please edit notes"));
    assert_eq!(
        t.digest.open_questions,
        ["I wrote and edited notes.txt; the first command exited with 3. Shall I add a README too?"]
    );
    assert_eq!(t.digest.files_changed, ["notes.txt"]);
    assert_eq!(t.digest.title.as_deref(), Some("Mock session"));
    assert_eq!(t.digest.tool_calls, 5);
}

#[test]
fn real_events_through_the_lane_equal_the_export() {
    for (events, exports) in [
        ("events-main.jsonl", vec!["export-main.json"]),
        ("events-compaction.jsonl", vec!["export-compaction.json"]),
        (
            "events-subagent.jsonl",
            vec!["export-parent.json", "export-child.json"],
        ),
    ] {
        // 4 KB cuts the 14 KB `seq` output: the size must still be the full one.
        let lane = from_lane(&lane_from_events(&opencode(events), 4096));
        assert!(lane.warnings.is_empty(), "{events}: {:?}", lane.warnings);
        assert_eq!(lane.sessions.len(), exports.len(), "{events}");
        for name in exports {
            let export = from_export(&opencode(name));
            let e = only(&export);
            let l = lane.sessions.iter().find(|s| s.id == e.id).unwrap();
            let policy = T0Policy::default();
            let a = render(l, &policy, Some(PROJECT));
            let b = render(e, &policy, Some(PROJECT));
            assert_eq!(a.text, b.text, "{events} vs {name}");
            assert_eq!(a.digest, b.digest, "{events} vs {name}");
            assert_eq!(a.stats, b.stats, "{events} vs {name}");
        }
    }
}

#[test]
fn real_subagent_links_parent_and_child() {
    let parent = from_export(&opencode("export-parent.json"));
    let child = from_export(&opencode("export-child.json"));
    let (p, c) = (only(&parent), only(&child));
    assert_eq!(c.parent.as_deref(), Some(p.id.as_str()));
    let t = render(p, &T0Policy::default(), Some(PROJECT));
    assert!(
        t.text
            .contains(&format!(" agent=@general child={} title=", c.id)),
        "{}",
        t.text
    );
    let t = render(c, &T0Policy::default(), Some(PROJECT));
    assert!(t.text.contains(&format!("· parent {} ·", p.id)));
    assert_eq!(t.digest.files_changed, ["child.txt"]);
    let compaction = from_export(&opencode("export-compaction.json"));
    let t = render(only(&compaction), &T0Policy::default(), Some(PROJECT));
    assert!(t.text.contains("\n[compaction]\n"));
    assert!(t
        .text
        .contains("\n[user synthetic] Continue if you have next steps"));
    assert_eq!(t.digest.last_ask.as_deref(), Some("set up a.txt"));
}

// ---------------------------------------------------------------------------------------------
// Sizes and formats

#[test]
fn sizes_and_durations_are_formatted_deterministically() {
    let sizes = [
        (0, "0B"),
        (1023, "1023B"),
        (1024, "1.0KB"),
        (2355, "2.3KB"),
        (10 * 1024 - 1, "10.0KB"),
        (1024 * 1024 - 1, "1.0MB"),
        (5 * 1024 * 1024 + 300 * 1024, "5.3MB"),
        (3 * 1024 * 1024 * 1024, "3.0GB"),
        (u64::MAX, "17179869184.0GB"),
    ];
    for (n, s) in sizes {
        assert_eq!(format_size(n), s, "{n}");
    }
    for (ms, s) in [
        (0, "0ms"),
        (999, "999ms"),
        (1000, "1.0s"),
        (1250, "1.2s"),
        (-5, "0ms"),
        (61_999, "61.9s"),
    ] {
        assert_eq!(format_duration(ms), s);
    }
}

fn tool_part(id: &str, tool: &str, state: Value) -> Value {
    json!({"id": id, "sessionID": "ses_x", "messageID": "msg_2", "type": "tool", "callID": format!("call_{id}"), "tool": tool, "state": state})
}

fn export_of(parts: Vec<Value>) -> String {
    json!({
        "info": {"id": "ses_x", "title": "t", "directory": "/p", "time": {"created": 1, "updated": 2}},
        "messages": [
            {"info": {"id": "msg_1", "sessionID": "ses_x", "role": "user", "time": {"created": 1}, "agent": "build"},
             "parts": [{"id": "prt_1", "sessionID": "ses_x", "messageID": "msg_1", "type": "text", "text": "go"}]},
            {"info": {"id": "msg_2", "sessionID": "ses_x", "role": "assistant", "time": {"created": 2, "completed": 3}, "mode": "build", "agent": "build"},
             "parts": parts}
        ]
    })
    .to_string()
}

#[test]
fn a_multi_megabyte_output_gives_a_small_transcript() {
    let big: String = (0..400_000).map(|i| format!("row {i:07} ok\n")).collect();
    assert_eq!(big.len(), 6_000_000);
    let text = export_of(vec![tool_part(
        "prt_2",
        "bash",
        json!({"status": "completed", "input": {"command": "dump"}, "output": big, "metadata": {"exitCode": 0}, "time": {"start": 10, "end": 20}}),
    )]);
    let n = from_export(&text);
    let t = render(only(&n), &T0Policy::default(), Some("/p"));
    assert!(t.text.len() < 400, "{}", t.text);
    let size = format_size(big.len() as u64);
    assert_eq!(size, "5.7MB");
    assert!(t
        .text
        .contains("[tool] bash ok 10ms exit=0 out=5.7MB targets=- cmd=\"dump\"\n"));
    let policy = T0Policy {
        snippets: vec![("bash".to_string(), 200)],
        ..T0Policy::default()
    };
    let t = render(only(&n), &policy, Some("/p"));
    assert!(t.text.len() < 800, "{}", t.text);
    assert!(t.text.contains("\n  | row 0000000 ok\n"));
    let marker = t.text.lines().last().unwrap();
    assert_eq!(marker, "  | … (+5.7MB)");
    // The snippet holds at most 200 bytes of output.
    let kept: usize = t
        .text
        .lines()
        .filter(|l| l.starts_with("  | row"))
        .map(|l| l.len() - 4 + 1)
        .sum();
    assert!(kept <= 200, "{kept}");
}

#[test]
fn huge_texts_are_clipped_and_multi_line_texts_indented() {
    let long = "word ".repeat(10_000);
    let mut text = export_of(vec![]);
    text = text.replace(
        "\"text\":\"go\"",
        &format!(
            "\"text\":\"first\\n\\n  second\\r\\nthird\\u001b[31mred\\u001b[0m\\u0007 {long}\""
        ),
    );
    let n = from_export(&text);
    let t = render(only(&n), &T0Policy::default(), None);
    let body = t.text.split("---\n").nth(1).unwrap();
    assert!(
        body.starts_with("[user] first\n\n    second\n  thirdred\u{fffd} word word"),
        "{body}"
    );
    assert!(body.len() < 17 * 1024);
    assert!(body.contains("\n  … (+"), "clip marker");
    assert_eq!(t.stats.clipped_texts, 1);
}

#[test]
fn tool_lines_cover_every_state() {
    let parts = vec![
        tool_part(
            "prt_2",
            "edit",
            json!({"status": "pending", "input": {"filePath": "/p/a.rs"}}),
        ),
        tool_part(
            "prt_3",
            "read",
            json!({"status": "running", "input": {"filePath": "/p/b.rs"}, "time": {"start": 5}}),
        ),
        tool_part(
            "prt_4",
            "write",
            json!({"status": "error", "input": {"filePath": "/p/c.rs"}, "error": "Error: something broke\nstack", "time": {"start": 5, "end": 9}}),
        ),
        tool_part("prt_5", "weird", json!({"status": "sleeping"})),
        tool_part(
            "prt_6",
            "bash",
            json!({"status": "error", "input": {"command": "x"}, "error": "NSO-BLOCK rm outside the project", "time": {"start": 1, "end": 2}}),
        ),
        tool_part(
            "prt_7",
            "nso_decide",
            json!({"status": "completed", "input": {"decision": "Use X", "token": "abcdef123456"}, "output": "D-0001 recorded", "time": {"start": 1, "end": 2}}),
        ),
        tool_part(
            "prt_8",
            "apply_patch",
            json!({"status": "completed", "input": {"patchText": (0..30).map(|i| format!("*** Add File: f{i:02}.txt\n")).collect::<String>()}, "output": "ok"}),
        ),
    ];
    let n = from_export(&export_of(parts));
    let t = render(only(&n), &T0Policy::default(), Some("/p"));
    let tools: Vec<&str> = t.text.lines().filter(|l| l.starts_with("[tool]")).collect();
    assert_eq!(tools[0], "[tool] edit pending out=0B targets=a.rs");
    assert_eq!(tools[1], "[tool] read running out=0B targets=b.rs");
    assert_eq!(
        tools[2],
        "[tool] write error 4ms out=0B targets=c.rs error=\"something broke\""
    );
    assert_eq!(tools[3], "[tool] weird unknown out=0B targets=-");
    assert_eq!(tools[4], "[tool] bash error 1ms out=0B targets=- cmd=\"x\" error=\"NSO-BLOCK rm outside the project\"");
    assert_eq!(
        tools[5],
        "[tool] nso_decide ok 1ms out=15B targets=- decision=\"Use X\" token=\"[REDACTED]\""
    );
    assert!(
        tools[6].contains(" targets=f00.txt,f01.txt,"),
        "{}",
        tools[6]
    );
    assert!(tools[6].ends_with(",f19.txt,+10"), "{}", tools[6]);
    assert_eq!(t.digest.tool_errors, 2);
    assert_eq!(t.digest.refusals.len(), 1);
    assert_eq!(
        t.digest.refusals[0].message,
        "NSO-BLOCK rm outside the project"
    );
    assert_eq!(t.digest.files_changed.len(), 30);
}

// ---------------------------------------------------------------------------------------------
// Generated sessions: long ones, and the lane-vs-export property

const TEXTS: &[&str] = &[
    "fix the build",
    "see task #12 and build_20260208_auth_abc123",
    "token=abc123def456ghi",
    "ünïcödé ✓ 日本語 text",
    "line one\nline two\n\nline four",
    "Should I continue?",
    "docs/stories/login.md needs an update",
    "",
    "   ",
    "sk-ant-REALLYsecret0123456789 in prose",
];
const TOOLS: &[&str] = &[
    "bash",
    "write",
    "edit",
    "read",
    "glob",
    "grep",
    "task",
    "apply_patch",
    "nso_status_set",
    "nso_report_result",
    "webfetch",
];

fn random_text(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..=rng.below(3) {
        s.push_str(TEXTS[rng.below(TEXTS.len())]);
        s.push(' ');
    }
    s
}

fn random_output(rng: &mut Rng) -> String {
    let n = match rng.below(10) {
        0 => 3000 + rng.below(3000),
        1..=3 => 0,
        _ => rng.below(200),
    };
    let mut s = String::new();
    while s.len() < n {
        s.push_str(TEXTS[rng.below(TEXTS.len())]);
        s.push('\n');
    }
    s
}

fn random_tool_state(rng: &mut Rng, tool: &str, final_version: bool) -> Value {
    let input = match tool {
        "bash" => json!({"command": random_text(rng)}),
        "write" => {
            json!({"filePath": format!("/proj/src/f{}.rs", rng.below(5)), "content": random_text(rng)})
        }
        "edit" => {
            json!({"filePath": "/proj/.opencode/context/active_tasks/build_20260208_auth_abc123/status.md", "oldString": "a", "newString": "- Status: DONE"})
        }
        "apply_patch" => {
            json!({"patchText": "*** Begin Patch\n*** Add File: docs/stories/login.md\n+x\n*** End Patch"})
        }
        "nso_status_set" => {
            json!({"task": rng.below(30), "status": *rng.pick(&["IN_PROGRESS", "DONE", "BLOCKED"])})
        }
        "task" => {
            json!({"description": "d", "prompt": random_text(rng), "subagent_type": "general"})
        }
        _ => json!({"path": "/proj/src", "pattern": "x"}),
    };
    if !final_version {
        return json!({"status": "pending", "input": {}, "raw": ""});
    }
    let start = 1000 + rng.below(1000) as i64;
    match rng.below(6) {
        0 => {
            json!({"status": "error", "input": input, "error": if rng.chance(50) { "Error: NSO blocked it" } else { "failed" }, "time": {"start": start, "end": start + 3}})
        }
        1 => json!({"status": "running", "input": input, "time": {"start": start}}),
        _ => {
            json!({"status": "completed", "input": input, "output": random_output(rng), "title": random_text(rng), "metadata": {"exit": rng.below(3)}, "time": {"start": start, "end": start + rng.below(5000) as i64}})
        }
    }
}

/// A random session: its export and its lane (same data, lane records shuffled between keys,
/// earlier versions of records before the last one, noise lines, cut outputs).
fn random_session(rng: &mut Rng, sid: &str, messages: usize, parts_per: usize) -> (String, String) {
    let mut export_messages = Vec::new();
    // Each key's versions, the last one final.
    let mut keys: Vec<Vec<Value>> = Vec::new();
    let info = json!({"id": sid, "title": random_text(rng), "directory": "/proj", "time": {"created": 1, "updated": 2}});
    keys.push(vec![
        json!({"v": 1, "kind": "session", "info": {"id": sid, "title": "New session"}}),
        json!({"v": 1, "kind": "session", "info": info.clone()}),
    ]);
    for k in 0..messages {
        let mid = format!("msg_{k:05}");
        let user = k % 2 == 0;
        let created = (k as i64) * 10 + rng.below(15) as i64; // ties and inversions happen
        let minfo = if user {
            json!({"id": mid, "sessionID": sid, "role": "user", "time": {"created": created}, "agent": "build", "model": {"providerID": "p", "modelID": "m"}})
        } else {
            json!({"id": mid, "sessionID": sid, "role": "assistant", "time": {"created": created, "completed": created + 5}, "mode": "build", "agent": "build", "parentID": "x"})
        };
        let mut early = minfo.clone();
        early["time"] = json!({"created": created});
        keys.push(vec![
            json!({"v": 1, "kind": "message", "info": early}),
            json!({"v": 1, "kind": "message", "info": minfo.clone()}),
        ]);
        let mut parts = Vec::new();
        for j in 0..rng.below(parts_per + 1) {
            let pid = format!("prt_{k:05}_{j:03}");
            let base = json!({"id": pid, "sessionID": sid, "messageID": mid});
            let mut versions = Vec::new();
            let part = if user || rng.chance(30) {
                let mut p = base.clone();
                p["type"] = json!("text");
                p["text"] = json!(random_text(rng));
                if user && rng.chance(20) {
                    p["synthetic"] = json!(true);
                }
                let mut growing = p.clone();
                growing["text"] = json!("");
                versions.push(growing);
                p
            } else {
                match rng.below(6) {
                    0 => {
                        let mut p = base.clone();
                        p["type"] = json!(*rng.pick(&[
                            "step-start",
                            "step-finish",
                            "reasoning",
                            "patch",
                            "snapshot",
                            "compaction",
                            "file",
                            "mystery"
                        ]));
                        p["text"] = json!(random_text(rng));
                        p
                    }
                    _ => {
                        let tool = *rng.pick(TOOLS);
                        let mut p = base.clone();
                        p["type"] = json!("tool");
                        p["tool"] = json!(tool);
                        p["callID"] = json!(format!("call_{k}_{j}"));
                        let mut early = p.clone();
                        early["state"] = random_tool_state(rng, tool, false);
                        versions.push(early);
                        p["state"] = random_tool_state(rng, tool, true);
                        p
                    }
                }
            };
            parts.push(part.clone());
            versions.push(shim_part(part, 1000));
            keys.push(
                versions
                    .into_iter()
                    .map(|p| json!({"v": 1, "kind": "part", "part": p}))
                    .collect(),
            );
        }
        // The export lists parts in any order: normalization sorts them by id.
        if rng.chance(30) {
            parts.reverse();
        }
        export_messages.push(json!({"info": minfo, "parts": parts}));
    }
    if rng.chance(30) {
        export_messages.reverse();
    }
    let export = json!({"info": info, "messages": export_messages}).to_string();
    // Interleave the keys' versions at random, each key's versions in order.
    let mut lane = String::new();
    let mut next = vec![0usize; keys.len()];
    let mut open: Vec<usize> = (0..keys.len()).collect();
    let mut seq = 0;
    while !open.is_empty() {
        let pick = rng.below(open.len().min(4));
        let k = open[pick];
        let mut r = keys[k][next[k]].clone();
        next[k] += 1;
        if next[k] == keys[k].len() {
            open.remove(pick);
        }
        seq += 1;
        r["seq"] = json!(seq);
        lane.push_str(&r.to_string());
        lane.push('\n');
        if rng.chance(2) {
            lane.push_str(NOISE[rng.below(NOISE.len())]);
            lane.push('\n');
        }
    }
    (export, lane)
}

/// Lines a lane may hold besides records: each is skipped with a warning.
const NOISE: &[&str] = &[
    "{\"v\":1,\"seq\":",
    "garbage",
    "{\"v\":9,\"kind\":\"part\"}",
    "{\"v\":1,\"kind\":\"x\"}",
    "[]",
];

fn snippet_policy() -> T0Policy {
    T0Policy::from_json(
        &json!({"snippets": {"bash": 300, "nso_*": 500, "read": 1000}, "reasoning": true}),
    )
    .unwrap()
}

#[test]
fn property_lane_and_export_give_the_same_transcript() {
    let mut rng = Rng(0x7_1a2b_3c4d);
    for case in 0..60 {
        let messages = 1 + rng.below(12);
        let (export, lane) = random_session(&mut rng, &format!("ses_p{case}"), messages, 6);
        let e = from_export(&export);
        let l = from_lane(&lane);
        assert!(e.warnings.is_empty(), "{:?}", e.warnings);
        for policy in [T0Policy::default(), snippet_policy()] {
            let a = render(only(&l), &policy, Some("/proj"));
            let b = render(only(&e), &policy, Some("/proj"));
            assert_eq!(a, b, "case {case}");
            // Rendering twice gives the same bytes.
            assert_eq!(render(only(&e), &policy, Some("/proj")), b);
        }
    }
}

#[test]
fn a_long_session_renders_bounded_and_deterministic() {
    let mut rng = Rng(0x10_000);
    let (export, lane) = random_session(&mut rng, "ses_long", 2_000, 9);
    let l = from_lane(&lane);
    let e = from_export(&export);
    let s = only(&l);
    let parts: usize = s.messages.iter().map(|m| m.parts.len()).sum();
    assert!(parts + s.messages.len() >= 10_000, "{parts} parts");
    let policy = snippet_policy();
    let a = render(s, &policy, Some("/proj"));
    assert_eq!(a, render(only(&e), &policy, Some("/proj")));
    assert_eq!(a, render(s, &policy, Some("/proj")));
    assert_eq!(a.stats.parts, parts);
    // Bounded: texts are short here, so every event costs well under a kilobyte.
    assert!(
        a.text.len() < 1000 * (parts + s.messages.len()),
        "{}",
        a.text.len()
    );
    assert!(a.text.lines().all(|l| l.len() < 1200));
    for t in &a.digest.tasks {
        assert!(t.evidence.len() <= 20);
        assert!(t.evidence.windows(2).all(|w| w[0].at < w[1].at));
        assert_eq!(
            t.relation,
            t.evidence.iter().map(|e| e.relation).max().unwrap()
        );
    }
    assert!(a.digest.open_questions.len() <= 5);
}

// ---------------------------------------------------------------------------------------------
// Robustness

#[test]
fn no_panic_on_truncated_or_mutated_input() {
    let mut rng = Rng(0xdead_beef);
    let sources = [
        fixture("small.lane.jsonl"),
        fixture("small.export.json"),
        fixture("interleaved.lane.jsonl"),
        opencode("events-subagent.jsonl"),
        lane_from_events(&opencode("events-main.jsonl"), 2000),
    ];
    let policies = [T0Policy::default(), snippet_policy()];
    for round in 0..400 {
        let src = rng.pick(&sources);
        let mut bytes = src.as_bytes().to_vec();
        match round % 4 {
            0 => bytes.truncate(rng.below(bytes.len() + 1)),
            1 => {
                for _ in 0..1 + rng.below(20) {
                    let i = rng.below(bytes.len());
                    bytes[i] = *rng.pick(b"{}[]\":,\\\n0a\x00\xff\xc3");
                }
            }
            2 => {
                let i = rng.below(bytes.len());
                let j = rng.below(bytes.len());
                bytes.drain(i.min(j)..i.max(j));
            }
            _ => bytes = (0..rng.below(300)).map(|_| rng.next() as u8).collect(),
        }
        let text = String::from_utf8_lossy(&bytes);
        for n in [from_lane(&text), from_export(&text)] {
            for s in &n.sessions {
                let p = rng.pick(&policies);
                let t = render(s, p, if rng.chance(50) { Some("/tmp") } else { None });
                assert!(t.text.starts_with("# T0 transcript "));
            }
        }
    }
}

#[test]
fn odd_values_are_tolerated() {
    let lines = [
        r#"{"v":1,"seq":1,"kind":"session","info":{"id":"ses_o","title":7,"parentID":null,"time":{"created":"soon"}}}"#,
        r#"{"v":1,"seq":2,"kind":"message","info":{"id":"msg_1","sessionID":"ses_o","role":"robot","time":{"created":1e300}}}"#,
        r#"{"v":1,"seq":3,"kind":"part","part":{"id":"prt_1","sessionID":"ses_o","messageID":"msg_1","type":"text","text":["not","text"]}}"#,
        r#"{"v":1,"seq":4,"kind":"part","part":{"id":"prt_2","sessionID":"ses_o","messageID":"msg_1","type":"tool","state":{"status":"completed","input":"str","output":5,"time":{"start":9e18,"end":-9e18},"metadata":{"exit":"0"}}}}"#,
        r#"{"v":1,"seq":5,"kind":"part","part":{"id":"prt_3","sessionID":"ses_o","messageID":"msg_2","type":"text","text":"orphan part"}}"#,
        r#"{"v":1,"seq":6,"kind":"part","part":{"id":"","sessionID":"ses_o","messageID":"msg_2","type":"text","text":"empty id"}}"#,
    ];
    let n = from_lane(&lines.join("\n"));
    assert_eq!(n.warnings.len(), 1, "{:?}", n.warnings);
    let s = only(&n);
    assert_eq!(s.messages.len(), 2);
    let t = render(s, &T0Policy::default(), None);
    assert!(
        t.text.contains("\n[tool] ? ok out=0B targets=-\n"),
        "{}",
        t.text
    );
    assert!(t.text.ends_with("[unknown] orphan part\n"), "{}", t.text);
}
