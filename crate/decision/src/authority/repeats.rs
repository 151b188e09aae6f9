//! Refusals counted per session: the second refusal of the same call in a session tells the
//! agent to stop retrying. "The same call" is [`call_hash`]: agent, tool, `via` and the
//! arguments' canonical form.

use std::collections::VecDeque;

use serde_json::Value;

use super::fast_map::FastMap;
use super::request::Request;

/// Maximum sessions whose repeat counters are kept (oldest forgotten first).
const MAX_SESSIONS: usize = 256;
/// Maximum distinct blocked calls remembered per session.
const MAX_BLOCKED_PER_SESSION: usize = 1024;

/// Per-session counts of refused calls, by [`call_hash`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Repeats {
    sessions: FastMap<String, FastMap<u64, u32>>,
    order: VecDeque<String>,
}

impl Repeats {
    /// Counts one more refusal of the call `key` (its [`call_hash`]) in `session`; how many
    /// there were so far, this one included.
    pub(crate) fn bump(&mut self, session: &str, key: u64) -> u32 {
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
        *n = n.saturating_add(1);
        *n
    }

    /// Forgets a session's counters (on session end).
    pub(crate) fn forget(&mut self, session: &str) {
        self.sessions.remove(session);
        self.order.retain(|s| s != session);
    }
}

/// What a refusal's message gets when it is the `n`th of the same call in a session (its
/// first message, then this): nothing the first time. A primary agent is told to ask the
/// person, a subagent to report to its caller ([`Request::delegated_by`]).
pub fn repeat_note(n: u32, req: &Request) -> Option<String> {
    (n >= 2).then(|| {
        let times = if n == 2 { "time" } else { "times" };
        let ask = super::message::whom_to_ask(req).replacen(" it ", " the block ", 1);
        format!(
            " This exact call was already refused {} {times} in this session: stop retrying, and {ask}.",
            n - 1
        )
    })
}

/// A hash of agent, tool and canonical args: identifies "the same call" for repeats and for
/// the memory of recent decisions (which compares the whole call too).
pub fn call_hash(req: &Request) -> u64 {
    let mut h = nso_text::hashing::WordHash::default();
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

    #[test]
    fn counts_per_session_and_call_and_forgets_a_session() {
        let mut r = Repeats::default();
        assert_eq!(r.bump("a", 1), 1);
        assert_eq!(r.bump("a", 1), 2);
        assert_eq!(r.bump("a", 2), 1);
        assert_eq!(r.bump("b", 1), 1);
        r.forget("a");
        assert_eq!(r.bump("a", 1), 1);
        assert_eq!(r.bump("b", 1), 2);
    }

    #[test]
    fn the_oldest_session_is_forgotten_first() {
        let mut r = Repeats::default();
        for s in 0..MAX_SESSIONS {
            r.bump(&format!("s{s}"), 7);
        }
        r.bump("s0", 7); // still kept: counted twice now
        r.bump("new", 7); // one too many: s0, the oldest, goes
        assert_eq!(r.bump("s0", 7), 1);
        assert_eq!(r.bump("s1", 7), 1, "s1 went when s0 came back");
    }

    #[test]
    fn the_note_counts_earlier_refusals_and_says_whom_to_ask() {
        let primary = Request::default();
        assert_eq!(repeat_note(1, &primary), None);
        let two = repeat_note(2, &primary).unwrap_or_default();
        assert!(
            two.contains("refused 1 time in")
                && two.ends_with("stop retrying, and ask the person."),
            "{two}"
        );
        let sub = Request {
            delegated_by: Some("build".into()),
            ..Request::default()
        };
        let four = repeat_note(4, &sub).unwrap_or_default();
        assert!(four.contains("refused 3 times in"), "{four}");
        assert!(
            four.ends_with("report the block to your caller (@build)."),
            "{four}"
        );
        let unknown = Request {
            delegated_by: Some(String::new()),
            ..Request::default()
        };
        assert!(repeat_note(2, &unknown)
            .is_some_and(|n| n.ends_with("report the block to your caller.")));
    }
}
