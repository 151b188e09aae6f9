//! The shipped default machines, as the same JSON a project writes under
//! `status.machines` in `.opencode/nso.json`. Parsed by [`super::machine::default_machines`];
//! a test keeps it valid.

/// The default machines: `nso-task`, `kord-story` and `proofchecker`, in that order.
pub const DEFAULT_MACHINES_JSON: &str = r##"{
  "nso-task": {
    "description": "NSO delegated task: `- Status:` in .opencode/context/active_tasks/<id>/status.md (kept by the executor while it works) and result.md (written once, at the end).",
    "noun": "task",
    "states": [
      { "name": "PENDING", "initial": true, "description": "Contract written, work not started." },
      { "name": "IN_PROGRESS", "aliases": ["WORKING"], "description": "The executor is working." },
      { "name": "BLOCKED", "description": "Waiting for answers (questions.md) or a missing dependency." },
      { "name": "COMPLETE", "terminal": true, "aliases": ["COMPLETED", "DONE"], "description": "Finished; result.md holds the deliverables." },
      { "name": "FAILED", "description": "The executor gave up; the delegator may retry." }
    ],
    "transitions": [
      { "from": "PENDING", "to": "IN_PROGRESS", "agents": ["builder", "dev", "dev-junior"], "description": "The executor starts after reading its contract." },
      { "from": "PENDING", "to": "BLOCKED", "agents": ["builder", "dev", "dev-junior"], "description": "Pre-flight: the contract is unclear, questions.md is written." },
      { "from": "IN_PROGRESS", "to": "BLOCKED", "agents": ["builder", "dev", "dev-junior"], "description": "The executor hits a blocker." },
      { "from": "BLOCKED", "to": "IN_PROGRESS", "agents": ["builder", "dev", "dev-junior", "oracle", "build", "kord"], "description": "Answers arrived; work resumes." },
      { "from": "IN_PROGRESS", "to": "COMPLETE", "agents": ["builder", "dev", "dev-junior"], "description": "All success criteria met." },
      { "from": "IN_PROGRESS", "to": "FAILED", "agents": ["builder", "dev", "dev-junior"], "description": "The executor cannot finish." },
      { "from": "BLOCKED", "to": "FAILED", "agents": ["oracle", "build", "kord"], "description": "The delegator gives up on a blocked task." },
      { "from": "FAILED", "to": "PENDING", "agents": ["oracle", "build", "kord"], "label": "retry", "description": "The delegator re-delegates the task." }
    ],
    "files": [
      { "globs": [".opencode/context/active_tasks/*/status.md"], "extract": { "kind": "markdownField" } },
      { "globs": [".opencode/context/active_tasks/*/result.md"], "extract": { "kind": "markdownField" }, "createIn": ["COMPLETE", "FAILED"] }
    ]
  },

  "kord-story": {
    "description": "Kord AIOS story lifecycle (agent contracts, section 3): one story per file under docs/kord/.",
    "noun": "story",
    "states": [
      { "name": "DRAFT", "initial": true, "description": "Being written by @sm." },
      { "name": "READY", "aliases": ["APPROVED"], "description": "Complete and approved; waiting for an executor." },
      { "name": "IN_PROGRESS", "description": "The executor is implementing it." },
      { "name": "BLOCKED", "description": "The executor cannot continue." },
      { "name": "REVIEW", "aliases": ["IN_REVIEW", "READY_FOR_REVIEW"], "description": "Waiting for the quality gate." },
      { "name": "DONE", "terminal": true, "aliases": ["COMPLETE", "COMPLETED"], "description": "Approved by the quality gate." },
      { "name": "ABORTED", "terminal": true, "aliases": ["CANCELLED", "CANCELED"], "description": "Rejected by the quality gate (critical issue)." }
    ],
    "transitions": [
      { "from": "DRAFT", "to": "READY", "agents": ["sm", "po"],
        "conditions": ["has_title", "has_acceptance_criteria", "has_tasks", "has_executor", "has_quality_gate", "quality_gate_differs"],
        "description": "@sm finishes the story or @po approves it." },
      { "from": "READY", "to": "IN_PROGRESS", "agents": ["build"], "description": "@build assigns it to its executor." },
      { "from": "IN_PROGRESS", "to": "REVIEW", "agents": ["dev", "dev-junior"],
        "conditions": ["all_tasks_checked", "dod_checked", "quality_gate_differs"],
        "description": "The executor has completed every task." },
      { "from": "IN_PROGRESS", "to": "BLOCKED", "agents": ["dev", "dev-junior"], "conditions": ["blocker_documented"],
        "description": "3 failures on one item, a missing dependency or an ambiguous requirement." },
      { "from": "REVIEW", "to": "DONE", "agents": ["qa"], "conditions": ["verdict_approved"], "label": "APPROVED" },
      { "from": "REVIEW", "to": "IN_PROGRESS", "agents": ["qa"], "conditions": ["verdict_needs_work"], "label": "NEEDS_WORK",
        "limit": { "counter": "needs_work", "max": 2,
          "escalation": "Do not send it back again: escalate to the user (stop and ask for a decision) and document the escalation in the story's review section." } },
      { "from": "REVIEW", "to": "ABORTED", "agents": ["qa"], "conditions": ["verdict_reject"], "label": "REJECT" },
      { "from": "BLOCKED", "to": "IN_PROGRESS", "agents": ["po"], "description": "The blocker is resolved or the user provided input." }
    ],
    "conditions": {
      "has_title": { "description": "the story has a title (`title:` or a `# ` heading)", "check": { "kind": "hasTitle" } },
      "has_acceptance_criteria": { "description": "the story has a non-empty `## Acceptance Criteria` section",
        "check": { "kind": "sectionNotEmpty", "sections": ["Acceptance Criteria", "AC"] } },
      "has_tasks": { "description": "the story has a `## Tasks` section with `- [ ]` checkboxes",
        "check": { "kind": "hasCheckboxes", "sections": ["Tasks", "Tasks / Subtasks", "Subtasks", "Task List"] } },
      "has_executor": { "description": "the story names its executor (`executor: <agent>`)",
        "check": { "kind": "fieldPresent", "fields": ["executor"] } },
      "has_quality_gate": { "description": "the story names its quality gate (`quality_gate: <agent>`)",
        "check": { "kind": "fieldPresent", "fields": ["quality_gate", "quality_gate_agent"] } },
      "quality_gate_differs": { "description": "the quality gate is not the executor",
        "check": { "kind": "fieldsDiffer", "fields": ["quality_gate", "quality_gate_agent"], "other": ["executor"] } },
      "all_tasks_checked": { "description": "every checkbox in `## Tasks` is ticked",
        "check": { "kind": "allChecked", "sections": ["Tasks", "Tasks / Subtasks", "Subtasks", "Task List"] } },
      "dod_checked": { "description": "every checkbox of the Definition of Done checklist (if the story has one) is ticked",
        "check": { "kind": "allChecked", "sections": ["Definition of Done", "DoD", "DoD Checklist"], "optional": true } },
      "blocker_field": { "description": "a `blocker:` field says what blocks the story",
        "check": { "kind": "fieldPresent", "fields": ["blocker", "blocked_by", "blocked_reason", "blocking_reason", "blocker_reason"] } },
      "blocker_section": { "description": "a `## Blockers` section says what blocks the story",
        "check": { "kind": "sectionNotEmpty", "sections": ["Blockers", "Blocker", "Blocked"] } },
      "blocker_documented": { "description": "the blocker is documented (`blocker:` field or `## Blockers` section)",
        "check": { "kind": "anyOf", "conditions": ["blocker_field", "blocker_section"] } },
      "verdict_approved": { "description": "the latest review verdict is APPROVED (`- Verdict: APPROVED` in the review section)",
        "check": { "kind": "fieldEquals", "fields": ["verdict", "qa_verdict", "review_verdict", "gate_verdict", "quality_gate_verdict", "gate_decision", "gate"],
          "values": ["APPROVED", "APPROVE", "PASS", "PASSED"], "last": true } },
      "verdict_needs_work": { "description": "the latest review verdict is NEEDS_WORK (`- Verdict: NEEDS_WORK` in the review section)",
        "check": { "kind": "fieldEquals", "fields": ["verdict", "qa_verdict", "review_verdict", "gate_verdict", "quality_gate_verdict", "gate_decision", "gate"],
          "values": ["NEEDS_WORK", "CHANGES_REQUESTED", "CONCERNS"], "last": true } },
      "verdict_reject": { "description": "the latest review verdict is REJECT (`- Verdict: REJECT` in the review section)",
        "check": { "kind": "fieldEquals", "fields": ["verdict", "qa_verdict", "review_verdict", "gate_verdict", "quality_gate_verdict", "gate_decision", "gate"],
          "values": ["REJECT", "REJECTED", "FAIL", "FAILED"], "last": true } }
    },
    "counters": {
      "needs_work": {
        "description": "NEEDS_WORK review verdicts",
        "countFields": ["verdict", "qa_verdict", "review_verdict", "gate_verdict", "quality_gate_verdict", "gate_decision", "gate"],
        "equals": ["NEEDS_WORK", "CHANGES_REQUESTED", "CONCERNS"],
        "numberFields": ["review_iterations", "needs_work_iterations"],
        "appendOnly": true
      }
    },
    "files": [
      { "globs": ["docs/kord/**/stories/*.md"], "extract": { "kind": "markdownField" } }
    ]
  },

  "proofchecker": {
    "description": "ProofChecker task markers: one `**Status**: [MARKER]` per `### NNN. Title` entry of TODO.md, mirrored as `status` of the task in state.json.",
    "noun": "task",
    "states": [
      { "name": "NOT STARTED", "initial": true },
      { "name": "RESEARCHING", "artifactsField": "Research Artifacts" },
      { "name": "RESEARCHED", "artifactsField": "Research Artifacts" },
      { "name": "PLANNING", "artifactsField": "Plan Artifacts" },
      { "name": "PLANNED", "artifactsField": "Plan Artifacts" },
      { "name": "REVISING", "artifactsField": "Plan Artifacts" },
      { "name": "REVISED", "artifactsField": "Plan Artifacts" },
      { "name": "IMPLEMENTING", "artifactsField": "Implementation Artifacts" },
      { "name": "PARTIAL", "artifactsField": "Implementation Artifacts", "description": "Implementation stopped part-way; /implement resumes." },
      { "name": "BLOCKED" },
      { "name": "COMPLETED", "terminal": true, "stamp": "Completed", "artifactsField": "Implementation Artifacts" },
      { "name": "ABANDONED", "terminal": true, "stamp": "Abandoned" }
    ],
    "transitions": [
      { "from": "NOT STARTED", "to": "RESEARCHING", "agents": ["researcher", "lean-research-agent"] },
      { "from": "RESEARCHING", "to": "RESEARCHED", "agents": ["researcher", "lean-research-agent"], "conditions": ["has_artifacts"] },
      { "from": "RESEARCHING", "to": "BLOCKED", "agents": ["researcher", "lean-research-agent"] },
      { "from": "RESEARCHED", "to": "PLANNING", "agents": ["planner", "lean-planner"] },
      { "from": "NOT STARTED", "to": "PLANNING", "agents": ["planner", "lean-planner"], "description": "Addition: /plan without research (the plan states that no research is linked)." },
      { "from": "PLANNING", "to": "PLANNED", "agents": ["planner", "lean-planner"], "conditions": ["has_artifacts"] },
      { "from": "PLANNED", "to": "REVISING", "agents": ["planner", "lean-planner"] },
      { "from": "REVISED", "to": "REVISING", "agents": ["planner", "lean-planner"], "description": "Addition: revise again (new plan version)." },
      { "from": "REVISING", "to": "REVISED", "agents": ["planner", "lean-planner"], "conditions": ["has_artifacts"] },
      { "from": "PLANNED", "to": "IMPLEMENTING", "agents": ["implementer", "lean-implementation-agent"] },
      { "from": "REVISED", "to": "IMPLEMENTING", "agents": ["implementer", "lean-implementation-agent"] },
      { "from": "IMPLEMENTING", "to": "COMPLETED", "agents": ["implementer", "lean-implementation-agent"] },
      { "from": "IMPLEMENTING", "to": "PARTIAL", "agents": ["implementer", "lean-implementation-agent"] },
      { "from": "PARTIAL", "to": "IMPLEMENTING", "agents": ["implementer", "lean-implementation-agent"], "description": "Addition: resume a partial implementation." },
      { "from": "IMPLEMENTING", "to": "BLOCKED", "agents": ["implementer", "lean-implementation-agent"] },
      { "from": "BLOCKED", "to": "RESEARCHING", "agents": ["researcher", "lean-research-agent"], "description": "Addition: resume after the blocker is gone." },
      { "from": "BLOCKED", "to": "IMPLEMENTING", "agents": ["implementer", "lean-implementation-agent"], "description": "Addition: resume after the blocker is gone." },
      { "from": "BLOCKED", "to": "ABANDONED", "agents": ["orchestrator"] }
    ],
    "conditions": {
      "has_artifacts": { "description": "the task links at least one artifact (no phantom research or plans)",
        "check": { "kind": "hasArtifacts" } }
    },
    "files": [
      { "globs": [".opencode/specs/TODO.md", "specs/TODO.md", "TODO.md"], "extract": { "kind": "todoEntries" } },
      { "globs": ["{.opencode/specs,specs}/state.json", "{.opencode/specs,specs}/*/state.json"],
        "exclude": ["**/archive/**", "**/maintenance/**"], "extract": { "kind": "jsonTasks" } }
    ]
  }
}"##;
