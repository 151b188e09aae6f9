//! Refusals counted per session: the second refusal of the same call in a session tells the
//! agent to stop retrying. "The same call" is [`call_hash`]: agent, tool, `via` and the
//! arguments' canonical form; its counters go by [`repeat_key`].

use std::collections::VecDeque;

use serde_json::Value;

use super::fast_map::FastMap;
use super::request::Request;

/// Maximum sessions whose repeat counters are kept (oldest forgotten first).
const MAX_SESSIONS: usize = 256;
/// Maximum distinct blocked calls remembered per session.
const MAX_BLOCKED_PER_SESSION: usize = 1024;

/// Per-session counts of refused calls, by [`repeat_key`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Repeats {
    sessions: FastMap<String, FastMap<u64, u32>>,
    order: VecDeque<String>,
}

impl Repeats {
    /// Counts `times` more refusals of the call `key` in `session`; how many there were so
    /// far, these included.
    pub(crate) fn bump(&mut self, session: &str, key: u64, times: u32) -> u32 {
        if !self.sessions.contains_key(session) {
            if self.order.len() >= MAX_SESSIONS {
                if let Some(old) = self.order.pop_front() {
                    self.sessions.remove(&old);
                }
            }
            self.order.push_back(session.to_string());
            self.sessions
                .insert(session.to_string(), FastMap::default());
        }
        let Some(map) = self.sessions.get_mut(session) else {
            return 1;
        };
        if map.len() >= MAX_BLOCKED_PER_SESSION && !map.contains_key(&key) {
            map.clear();
        }
        let n = map.entry(key).or_insert(0);
        *n = n.saturating_add(times);
        *n
    }

    /// Forgets a session's counters (on session end).
    pub(crate) fn forget(&mut self, session: &str) {
        self.sessions.remove(session);
        self.order.retain(|s| s != session);
    }
}

/// The words of [`repeat_note`], around the number of earlier refusals: before it, then
/// after it when it is one, else after it. A shim that counts remembered refusals itself
/// (see [`Engine::refused_again`](super::Engine::refused_again)) puts its note together
/// from these, so the wording stays here.
pub const REPEAT_NOTE_PARTS: [&str; 3] = [
    " This exact call was already refused ",
    " time in this session: stop retrying, and report the block to your caller.",
    " times in this session: stop retrying, and report the block to your caller.",
];

/// What a refusal's message gets when it is the `n`th of the same call in a session (its
/// first message, then this): nothing the first time.
pub fn repeat_note(n: u32) -> Option<String> {
    let [before, one, many] = REPEAT_NOTE_PARTS;
    (n >= 2).then(|| format!("{before}{}{}", n - 1, if n == 2 { one } else { many }))
}

/// The key of a call's repeat counters: the top 53 bits of its [`call_hash`], so that a shim
/// can hold it as a JavaScript number (see [`crate::authority::Brief::again`]).
pub fn repeat_key(req: &Request) -> u64 {
    repeat_key_of(call_hash(req))
}

/// [`repeat_key`] from the call's [`call_hash`], when it is known already.
pub(crate) fn repeat_key_of(call_hash: u64) -> u64 {
    call_hash >> 11
}

/// A hash of agent, tool and canonical args: identifies "the same call" for repeats and for
/// the memory of recent decisions (which compares the whole call too).
pub fn call_hash(req: &Request) -> u64 {
    let mut h = crate::hashing::WordHash::default();
    let mut feed = |bytes: &[u8]| h.feed(bytes);
    feed(req.agent.as_deref().unwrap_or("").as_bytes());
    feed(req.tool.as_bytes());
    feed(req.via.as_deref().unwrap_or("").as_bytes());
    feed_value(&mut feed, &req.args);
    h.value()
}

/// Feeds a JSON value to the hash as its canonical text would, without writing that text:
/// a kind byte, then the text of each scalar and key (object keys come sorted).
fn feed_value(feed: &mut impl FnMut(&[u8]), value: &Value) {
    match value {
        Value::Null => feed(b"n"),
        Value::Bool(b) => feed(if *b { b"t" } else { b"f" }),
        Value::Number(n) => {
            feed(b"#");
            feed(n.to_string().as_bytes());
        }
        Value::String(s) => {
            feed(b"s");
            feed(s.as_bytes());
        }
        Value::Array(items) => {
            feed(b"[");
            for item in items {
                feed_value(feed, item);
            }
            feed(b"]");
        }
        Value::Object(map) => {
            feed(b"{");
            for (key, item) in map {
                feed(key.as_bytes());
                feed_value(feed, item);
            }
            feed(b"}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Repeats {
        fn bump1(&mut self, session: &str, key: u64) -> u32 {
            self.bump(session, key, 1)
        }
    }

    #[test]
    fn counts_per_session_and_call_and_forgets_a_session() {
        let mut r = Repeats::default();
        assert_eq!(r.bump1("a", 1), 1);
        assert_eq!(r.bump1("a", 1), 2);
        assert_eq!(r.bump1("a", 2), 1);
        assert_eq!(r.bump1("b", 1), 1);
        r.forget("a");
        assert_eq!(r.bump1("a", 1), 1);
        assert_eq!(r.bump1("b", 1), 2);
    }

    #[test]
    fn repeats_told_later_add_up() {
        let mut r = Repeats::default();
        assert_eq!(r.bump("a", 1, 1), 1);
        assert_eq!(
            r.bump("a", 1, 3),
            4,
            "three counted elsewhere, told at once"
        );
        assert_eq!(r.bump1("a", 1), 5);
        assert_eq!(r.bump("b", 1, 2), 2);
    }

    #[test]
    fn the_oldest_session_is_forgotten_first() {
        let mut r = Repeats::default();
        for s in 0..MAX_SESSIONS {
            r.bump1(&format!("s{s}"), 7);
        }
        r.bump1("s0", 7); // still kept: counted twice now
        r.bump1("new", 7); // one too many: s0, the oldest, goes
        assert_eq!(r.bump1("s0", 7), 1);
        assert_eq!(r.bump1("s1", 7), 1, "s1 went when s0 came back");
    }

    #[test]
    fn a_repeat_key_is_exact_as_a_javascript_number() {
        for command in ["git push", "rm -rf /", "", "npm test"] {
            let req = Request {
                tool: "bash".into(),
                args: serde_json::json!({ "command": command }),
                ..Request::default()
            };
            assert!(repeat_key(&req) < 1 << 53);
            assert_eq!(repeat_key(&req), call_hash(&req) >> 11);
        }
    }

    #[test]
    fn the_note_counts_earlier_refusals() {
        assert_eq!(repeat_note(1), None);
        assert!(repeat_note(2).is_some_and(|n| n.contains("refused 1 time in")));
        assert!(repeat_note(4).is_some_and(|n| n.contains("refused 3 times in")));
    }
}
