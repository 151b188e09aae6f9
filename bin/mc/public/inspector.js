// The inspector of one agent: its recent tool calls with NSO's verdicts and messages, last
// error, task contract, delegation tree, claims (with the person's release and force), its T0
// transcript and latest handoff, and how to reach it (`opencode attach`). A modal dialog:
// Escape or Close returns the focus to the row that opened it.
import { api, clear, clipped, clock, duration, el, stateClass, verdictClass } from "./dom.js";

const $ = (id) => document.getElementById(id);
let openKey = null;
let opener = null;
let loading = null;

/** The key of the row being inspected, or null. */
export const inspectorKey = () => openKey;

/** Opens the inspector on the row `key` (`from`: the element to give the focus back to). */
export async function openInspector(key, from) {
  openKey = key;
  opener = from ?? document.activeElement;
  $("inspector").hidden = false;
  $("inspector-backdrop").hidden = false;
  document.body.classList.add("inspecting");
  $("inspector-title").textContent = "Loading…";
  clear($("inspector-body"));
  $("inspector-title").focus();
  await refreshInspector();
}

/** Closes the inspector; the focus goes back to its row. */
export function closeInspector() {
  if (openKey === null) return;
  openKey = null;
  $("inspector").hidden = true;
  $("inspector-backdrop").hidden = true;
  document.body.classList.remove("inspecting");
  const back = opener?.isConnected ? opener : document.querySelector(`#agents-body tr`);
  opener = null;
  back?.focus();
}

/** Reloads what the inspector shows (a delta touched its row); one load at a time. */
export async function refreshInspector() {
  if (openKey === null) return;
  if (loading) {
    loading.again = true;
    return;
  }
  const key = openKey;
  loading = { again: false };
  try {
    const data = await api(`/api/inspect?key=${encodeURIComponent(key)}`);
    if (openKey === key) render(data);
  } catch (error) {
    if (openKey === key) {
      $("inspector-title").textContent = "Not available";
      $("inspector-body").replaceChildren(el("p", { class: "error", text: error.message }));
    }
  } finally {
    const again = loading.again;
    loading = null;
    if (again) refreshInspector();
  }
}

function section(title, ...children) {
  return el("section", { class: "insp-section" }, el("h3", { text: title }), ...children);
}

function dl(pairs) {
  return el("dl", { class: "facts" }, pairs.filter(([, v]) => v !== undefined && v !== null && v !== "").flatMap(([k, v]) => [el("dt", { text: k }), el("dd", {}, v)]));
}

function render(data) {
  const row = data.row ?? {};
  const body = $("inspector-body");
  const keep = body.querySelector("form.action-form:focus-within");
  if (keep) return; // the person is typing a justification: no re-render under their hands
  $("inspector-title").textContent = `@${row.agent ?? "?"} · ${row.project ?? "?"}`;
  const seen = Number.isFinite(row.lastSeen) ? `${duration(Date.now() - row.lastSeen)} ago (${clock(row.lastSeen)})` : undefined;
  const parts = [
    dl([
      ["State", el("span", { class: stateClass(row.state), text: row.state ?? "?" })],
      ["Task", row.task ?? row.title ?? "–"],
      ["Priority", row.priority],
      ["Session", row.session],
      ["Project", row.root ?? row.project],
      ["Last sign of life", seen],
    ]),
    section("How to get to it", data.attach
      ? el("div", { class: "attach" }, el("code", { class: "command", text: data.attach }), copyButton(data.attach))
      : el("p", { class: "muted", text: "No OpenCode server answers for this session (OpenCode listens with `opencode --port N`; `opencode run` does not); go to its terminal." })),
  ];
  if (data.lastError) parts.push(section("Last error", el("pre", { class: "text error", text: errorText(data.lastError) })));
  parts.push(section("Recent tool calls", callsTable(data.calls ?? [])));
  parts.push(section("Task contract", data.contract
    ? dl([["Task", data.contract.taskId], ["Status", data.contract.status], ["Contract", data.contract.path]])
    : el("p", { class: "muted", text: "No task contract for this session." })));
  parts.push(section("Delegation", treeView(data.tree)));
  parts.push(section("Claims", claimsView(data), forceForm(data)));
  parts.push(section("T0 transcript", data.transcript
    ? el("div", {}, el("p", { class: "muted", text: data.transcript.path ?? "" }), el("pre", { class: "text", text: data.transcript.text ?? "" }))
    : el("p", { class: "muted", text: "No transcript yet (written when the session goes idle)." })));
  parts.push(section("Latest handoff", data.handoff ? el("pre", { class: "text", text: data.handoff }) : el("p", { class: "muted", text: "No handoff yet." })));
  body.replaceChildren(...parts);
}

const errorText = (e) => (typeof e === "string" ? e : [e.tool, e.rule, e.message].filter(Boolean).join(": ") || JSON.stringify(e));

/** The calls as the table lists them: one line per call (its start), marked done when it ended. */
function mergedCalls(calls) {
  const lines = [];
  const byId = new Map();
  for (const c of calls) {
    if (c.phase === "end" && c.callID && byId.has(c.callID)) byId.get(c.callID).ended = c.t;
    else {
      const line = { ...c, ended: c.phase === "end" ? c.t : null };
      lines.push(line);
      if (c.callID) byId.set(c.callID, line);
    }
  }
  return lines;
}

function callsTable(calls) {
  if (!calls.length) return el("p", { class: "muted", text: "No tool call recorded." });
  const rows = mergedCalls(calls).reverse().map((c) => el("tr", { class: c.verdict === "block" ? "call-blocked" : "" },
    el("td", { text: clock(c.t) }),
    el("td", { text: c.tool ?? "?" }),
    el("td", { class: "target", text: clipped(c.target ?? "", 300), title: c.target ?? undefined }),
    el("td", {},
      c.verdict ? el("span", { class: verdictClass(c.verdict), text: c.verdict }) : null,
      c.verdict === "block" ? null : el("div", { class: "muted", text: c.ended !== null ? "done" : "running" })),
    el("td", { class: "message" }, c.rule ? el("code", { text: c.rule }) : null, c.message ? el("div", { class: "nso-message", text: c.message }) : null)));
  return el("div", { class: "table-wrap" }, el("table", { class: "calls" },
    el("thead", {}, el("tr", {}, ["Time", "Tool", "Target", "Verdict", "NSO's rule and message"].map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, rows)));
}

function treeView(tree) {
  const parent = tree?.parent;
  const children = tree?.children ?? [];
  if (!parent && !children.length) return el("p", { class: "muted", text: "A main session without subagents." });
  const label = (s) => (typeof s === "string" ? s : `${s.agent ? `@${s.agent} ` : ""}${s.session ?? s.key ?? ""}${s.state ? ` (${s.state})` : ""}`);
  const open = (s) => {
    const key = typeof s === "object" ? s.key : null;
    if (!key) return el("span", { text: label(s) });
    const b = el("button", { type: "button", class: "link", text: label(s) });
    b.addEventListener("click", () => openInspector(key, $("inspector-title")));
    return b;
  };
  return el("div", {},
    parent ? el("p", {}, "Delegated by ", open(parent)) : null,
    children.length ? el("ul", { class: "tree" }, children.map((c) => el("li", {}, open(c)))) : null);
}

function claimsView(data) {
  const claims = data.claims ?? [];
  const root = data.row?.root;
  if (!claims.length) return el("p", { class: "muted", text: "No claim held." });
  const list = el("ul", { class: `claims${data.row?.claimsStale ? " stale" : ""}` }, claims.map((pattern) => {
    const shown = root && pattern.startsWith(`${root}/`) ? pattern.slice(root.length + 1) : pattern;
    const item = el("li", {}, el("code", { text: shown, title: pattern }));
    if (data.conductor?.id) {
      const button = el("button", { type: "button", class: "small", text: "Release…" });
      button.addEventListener("click", () => {
        button.replaceWith(actionForm({
          label: `Why release ${shown}?`, submit: "Release",
          send: (why) => api("/api/release", { method: "POST", body: { key: data.row.key, files: [pattern], reason: why } }),
        }));
        item.querySelector("input")?.focus();
      });
      item.append(" ", button);
    }
    return item;
  }));
  if (!data.row?.claimsStale) return list;
  return el("div", {}, el("p", { class: "stale-note", text: "Stale: this instance is dead, so it holds nothing; the Conductor drops these at its next operation (or release them now)." }), list);
}

function forceForm(data) {
  if (!data.conductor?.id) return el("p", { class: "muted", text: "Not registered with the Conductor: no claim to act on." });
  const refused = data.row?.lastRefusal?.target ?? data.row?.lastRefusal?.path ?? "";
  const details = el("details", { class: "force" }, el("summary", { text: "Force a claim for this agent…" }));
  details.append(actionForm({
    label: "Why take it from its holder?", submit: "Force the claim", pattern: refused,
    send: (why, pattern) => api("/api/force", { method: "POST", body: { key: data.row.key, files: [pattern], justification: why } }),
  }));
  return details;
}

/** A small form: (a pattern and) a required justification, sent by `send`; shows the answer. */
function actionForm({ label, submit, send, pattern }) {
  const form = el("form", { class: "action-form" });
  const patternInput = pattern !== undefined ? el("input", { type: "text", required: "required", "aria-label": "File or pattern to claim", placeholder: "path or pattern" }) : null;
  if (patternInput) patternInput.value = pattern;
  const why = el("input", { type: "text", required: "required", maxlength: "500", "aria-label": label, placeholder: label });
  const out = el("p", { class: "action-result", role: "status" });
  form.append(...[patternInput, why, el("button", { type: "submit", text: submit }), out].filter(Boolean));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    out.textContent = "…";
    try {
      const result = await send(why.value, patternInput?.value);
      out.textContent = result.message ?? result.status ?? "done";
      out.className = `action-result ${result.status === "ok" ? "ok" : "error"}`;
    } catch (error) {
      out.textContent = error.message;
      out.className = "action-result error";
    }
  });
  return form;
}

function copyButton(text) {
  const b = el("button", { type: "button", class: "small", text: "Copy" });
  b.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
      b.textContent = "Copied";
    } catch {
      b.textContent = "Select the text to copy";
    }
  });
  return b;
}

// Escape closes; Tab stays inside the open dialog.
document.addEventListener("keydown", (event) => {
  if (openKey === null) return;
  if (event.key === "Escape") {
    event.preventDefault();
    closeInspector();
  } else if (event.key === "Tab") {
    const focusables = [...$("inspector").querySelectorAll("button, input, summary, [tabindex]")].filter((n) => !n.closest("[hidden]") && n.offsetParent !== null);
    if (!focusables.length) return;
    const first = focusables[0];
    const last = focusables.at(-1);
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (document.activeElement === last || !$("inspector").contains(document.activeElement))) {
      event.preventDefault();
      first.focus();
    }
  }
});
