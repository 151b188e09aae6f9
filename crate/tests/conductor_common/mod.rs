//! A small world for the conductor tests: the state file, the clock and the logs the shim
//! would keep, with one call per operation.
#![allow(dead_code)]

use serde_json::{json, Value};

/// The start of every test clock.
pub const T0: &str = "2026-11-23T10:00:00Z";

/// What the shim keeps between calls.
pub struct World {
    pub state: Option<String>,
    pub sprint: Option<String>,
    pub now: String,
    pub host: String,
    pub alive: Value,
    pub ttl: u64,
    pub next_random: u32,
    pub history: Vec<String>,
    pub log: Vec<String>,
}

impl Default for World {
    fn default() -> Self {
        World {
            state: None,
            sprint: None,
            now: T0.to_string(),
            host: "here".to_string(),
            alive: json!({}),
            ttl: 600,
            next_random: 1,
            history: Vec::new(),
            log: Vec::new(),
        }
    }
}

impl World {
    /// The request text for `op` in the current world.
    pub fn request(&self, op: &Value) -> String {
        json!({
            "state": self.state,
            "sprint": self.sprint,
            "now": self.now,
            "random": format!("{:06}", self.next_random),
            "host": self.host,
            "alive": self.alive,
            "ttlSeconds": self.ttl,
            "op": op,
        })
        .to_string()
    }

    /// Applies `op` as the shim would: writes the new state, appends the lines. Returns the
    /// whole response.
    pub fn call(&mut self, op: Value) -> Value {
        let text = nso::conductor::apply(&self.request(&op));
        let response: Value = serde_json::from_str(&text).expect("responses are JSON");
        if let Some(state) = response["state"].as_str() {
            self.state = Some(state.to_string());
        }
        for line in response["history"].as_array().unwrap() {
            self.history.push(line.as_str().unwrap().to_string());
        }
        for line in response["conflicts"].as_array().unwrap() {
            self.log.push(line.as_str().unwrap().to_string());
        }
        response
    }

    /// Applies `op`, which must not be an error; returns `result`.
    pub fn ok(&mut self, op: Value) -> Value {
        let response = self.call(op);
        assert!(
            response.get("error").is_none(),
            "unexpected error: {response}"
        );
        response["result"].clone()
    }

    /// Registers a P1 task in `root` on this host; returns the instance id.
    pub fn start(&mut self, task: &str, root: &str) -> String {
        let result = self.ok(json!({
            "operation": "start", "task": task, "priority": "P1", "project_root": root,
            "working_directory": root, "pid": 1000 + self.next_random, "agent": "dev",
        }));
        self.next_random += 1;
        result["instance_id"].as_str().unwrap().to_string()
    }

    /// `claim` of `files` by `id`; returns `result`.
    pub fn claim(&mut self, id: &str, files: &[&str]) -> Value {
        self.ok(json!({"operation": "claim", "instance_id": id, "files": files}))
    }

    /// The state as JSON.
    pub fn state_json(&self) -> Value {
        serde_json::from_str(self.state.as_deref().unwrap_or("{}")).unwrap()
    }

    /// The stored instance `id`, or null.
    pub fn instance(&self, id: &str) -> Value {
        self.state_json()["instances"]
            .as_array()
            .and_then(|all| all.iter().find(|i| i["id"] == id).cloned())
            .unwrap_or(Value::Null)
    }

    /// Moves the clock to `iso`.
    pub fn at(&mut self, iso: &str) {
        self.now = iso.to_string();
    }
}

/// The seed's example status.json (version 1.0, relative claims).
pub const SEED_STATE: &str = r#"{
  "version": "1.0",
  "updated_at": "2026-01-17T10:30:00Z",
  "instances": [
    {
      "id": "itm-a1b2c3",
      "source": "itm",
      "project": "pitchello",
      "task": "Fix authentication bug in user service",
      "priority": "P1",
      "files_claimed": [
        "src/api/users.ts",
        "src/lib/auth.ts"
      ],
      "started_at": "2026-01-17T09:45:00Z",
      "last_heartbeat": "2026-01-17T10:30:00Z",
      "working_directory": "/Users/mariogiancini/Developer/pitchello"
    }
  ],
  "global_claims": {
    "src/api/users.ts": "itm-a1b2c3",
    "src/lib/auth.ts": "itm-a1b2c3"
  },
  "drift_warnings": [
    {
      "instance_id": "cur-x7y8z9",
      "reason": "P3 task during P1 sprint focus",
      "acknowledged": false
    }
  ]
}"#;
