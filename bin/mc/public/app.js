// Mission Control's page: the Agents table, the Conductor's conflicts and history, the
// decision ledger and Mind (mind.js), kept current by the server's deltas over Server-Sent Events (one snapshot
// when the stream opens, then only what changed). Data is shown as text only (dom.js).
import { api, clear, clipped, clock, duration, el, stateClass, token, visible } from "./dom.js";
import { closeInspector, inspectorKey, openInspector, refreshInspector } from "./inspector.js";
import { mindRoot, renderMind } from "./mind.js";

const $ = (id) => document.getElementById(id);

/** What the page knows: the rows by key, the instances, the logs, how the table is sorted. */
const model = {
  rows: new Map(),
  instances: [],
  conflicts: [],
  history: [],
  problems: [],
  skew: 0, // server clock minus this page's clock
  sort: { key: "lastSeen", dir: -1 },
  filter: "",
};
const trs = new Map(); // row key -> <tr>

const now = () => Date.now() + model.skew;

// --- the table ----------------------------------------------------------------------------

const STATE_ORDER = { blocked: 0, working: 1, idle: 2, dead: 3 };

/** When the row's session began (ms): `started`, else from `age` against the snapshot's time. */
const startedOf = (row) => row.started ?? row.since ?? (Number.isFinite(row.age) && Number.isFinite(row.asOf) ? row.asOf - row.age : undefined);

/** The value a column sorts by. */
function sortValue(row, key) {
  switch (key) {
    case "state": return STATE_ORDER[row.state] ?? 9;
    case "inProgress": return row.inProgress ? row.inProgress.since ?? 0 : -1;
    case "lastRefusal": return row.lastRefusal?.t ?? -1;
    case "claims": return row.claims?.length ?? 0;
    case "age": return -(startedOf(row) ?? 0);
    case "lastSeen": return row.lastSeen ?? 0;
    default: return String(row[key] ?? "").toLowerCase();
  }
}

function compareRows(a, b) {
  const { key, dir } = model.sort;
  const x = sortValue(a, key);
  const y = sortValue(b, key);
  if (x < y) return -dir;
  if (x > y) return dir;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** A claim pattern as shown: relative to the row's project when inside it. */
function shortClaim(pattern, root) {
  const p = String(pattern ?? "");
  return root && p.startsWith(`${root}/`) ? p.slice(root.length + 1) : p;
}

/** The conductor instances named in the logged conflicts of the last hour. */
function conflicted() {
  const ids = new Map(); // instance id -> the other instance(s)
  const since = now() - 3600_000;
  for (const entry of model.conflicts) {
    const c = conflictEntry(entry);
    if (c.kind !== "CONFLICT" || (Number.isFinite(c.t) && c.t < since)) continue;
    const m = /^(\S+) tried to claim .* already held by (\S+?)(?: \(as .*\))?$/.exec(c.text);
    if (!m) continue;
    ids.set(m[1], m[2]);
    ids.set(m[2], m[1]);
  }
  return ids;
}

/** Fills the cells of `tr` from `row`. */
function fillRow(tr, row, conflicts) {
  const cells = tr.children;
  const set = (i, text, full) => {
    cells[i].textContent = visible(text);
    cells[i].title = full === undefined ? "" : visible(full);
  };
  set(0, row.project ?? "?", row.root);
  set(1, clipped(row.task ?? row.title ?? "–", 140), row.task ?? row.title ?? undefined);
  set(2, row.priority ?? "–");
  set(3, row.agent ? `@${row.agent}` : "?");
  const conflictWith = conflicts.get(row.conductorId ?? row.conductor?.id ?? "");
  const badge = el("span", { class: stateClass(row.state), text: row.state ?? "?" });
  clear(cells[4]);
  cells[4].append(badge);
  if (conflictWith) cells[4].append(" ", el("span", { class: "conflict-flag", text: `conflict with ${conflictWith}` }));
  const p = row.inProgress;
  set(5, p ? clipped(`${p.tool}${p.target ? ` ${p.target}` : ""}`, 100) : "–", p ? `${p.tool} ${p.target ?? ""}` : undefined);
  const r = row.lastRefusal;
  set(6, r ? clipped(`${r.tool}: ${r.message ?? r.rule ?? ""}`, 140) : "–", r ? `${r.tool} (${r.rule ?? "?"}): ${r.message ?? ""}` : undefined);
  const claims = (row.claims ?? []).map((c) => shortClaim(c, row.root));
  const stale = row.claimsStale ? "stale (dead instance): " : "";
  const problem = row.storeProblem?.message;
  if (problem) set(7, clipped(`not registered: ${problem}`, 100), problem);
  else set(7, claims.length ? `${stale}${clipped(claims.join(", "), 100)}` : "–", claims.length ? `${stale}${claims.join("\n")}` : undefined);
  cells[7].classList.toggle("stale", Boolean(row.claimsStale));
  tr.dataset.state = row.state ?? "";
  tr.classList.toggle("has-conflict", Boolean(conflictWith));
  tr.setAttribute("aria-label", visible(`${row.project ?? "?"}, @${row.agent ?? "?"}, ${row.state ?? "?"}: ${clipped(row.task ?? "", 80)}`));
  fillTimes(tr, row);
}

/** The two cells that change with the clock alone. */
function fillTimes(tr, row) {
  const started = startedOf(row);
  tr.children[8].textContent = started === undefined ? "–" : duration(now() - started);
  tr.children[9].textContent = Number.isFinite(row.lastSeen) ? `${duration(now() - row.lastSeen)} ago` : "–";
  tr.children[9].title = Number.isFinite(row.lastSeen) ? clock(row.lastSeen) : "";
}

function newRow(row) {
  const labels = ["Project", "Task", "Pri", "Agent", "State", "In progress", "Last refusal", "Claims", "Age", "Last sign of life"];
  const tr = el("tr", { tabindex: "0", class: "agent-row", dataset: { key: row.key } }, labels.map((label) => el("td", { dataset: { label } })));
  tr.addEventListener("click", () => openInspector(row.key, tr));
  tr.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      openInspector(tr.dataset.key, tr);
    }
  });
  return tr;
}

/** Puts the table in line with the model: rows added, updated, removed, sorted, filtered. */
function renderTable(changedKeys) {
  const body = $("agents-body");
  const conflicts = conflicted();
  for (const [key, tr] of trs) {
    if (!model.rows.has(key)) {
      tr.remove();
      trs.delete(key);
    }
  }
  for (const row of model.rows.values()) {
    let tr = trs.get(row.key);
    const fresh = !tr;
    if (fresh) trs.set(row.key, (tr = newRow(row)));
    if (fresh || !changedKeys || changedKeys.has(row.key) || tr.classList.contains("has-conflict") !== conflicts.has(row.conductorId ?? "")) fillRow(tr, row, conflicts);
    tr.hidden = Boolean(model.filter) && row.root !== model.filter && row.project !== model.filter;
  }
  const ordered = [...model.rows.values()].sort(compareRows).map((row) => trs.get(row.key));
  // Re-append only when the order changed: moving the focused row would drop the focus.
  const current = [...body.children];
  if (ordered.length !== current.length || ordered.some((tr, i) => tr !== current[i])) {
    const focused = document.activeElement;
    body.append(...ordered);
    if (focused && body.contains(focused)) focused.focus({ preventScroll: true });
  }
  const shown = ordered.filter((tr) => !tr.hidden).length;
  $("agents-empty").hidden = shown > 0;
  const alive = model.instances.filter((i) => i.alive !== false).length;
  $("counts").textContent = `${shown} agent${shown === 1 ? "" : "s"} · ${alive} live instance${alive === 1 ? "" : "s"}`;
  for (const th of document.querySelectorAll("#agents th[data-sort]")) {
    const on = th.dataset.sort === model.sort.key;
    th.setAttribute("aria-sort", on ? (model.sort.dir > 0 ? "ascending" : "descending") : "none");
  }
}

// --- projects, conflicts, history -----------------------------------------------------------

/** The projects the page knows: `{root, name}` by root. */
function projects() {
  const byRoot = new Map();
  for (const i of model.instances) if (i.root) byRoot.set(i.root, i.project ?? i.root);
  for (const r of model.rows.values()) if (r.root && !byRoot.has(r.root)) byRoot.set(r.root, r.project ?? r.root);
  return [...byRoot].map(([root, name]) => ({ root, name })).sort((a, b) => a.name.localeCompare(b.name));
}

/** Keeps `select`'s options equal to the projects (its choice kept). */
function syncProjectSelect(select, list, { all }) {
  const wanted = [...(all ? [{ root: "", name: all }] : []), ...list];
  const same = select.options.length === wanted.length && wanted.every((p, i) => select.options[i].value === p.root);
  if (same) return false;
  const chosen = select.value;
  clear(select);
  for (const p of wanted) {
    const dup = list.filter((q) => q.name === p.name).length > 1;
    select.append(el("option", { value: p.root, text: dup ? `${p.name} (${p.root})` : p.name }));
  }
  if (wanted.some((p) => p.root === chosen)) select.value = chosen;
  return true;
}

/** A conflicts.log entry as `{t, kind, text}`: a raw line, or what the model parsed. */
function conflictEntry(entry) {
  if (typeof entry === "string") {
    const m = /^(\S+) \| ([A-Z]+) \| ([\s\S]*)$/.exec(entry);
    return m ? { t: Date.parse(m[1]), at: m[1], kind: m[2], text: m[3] } : { kind: "", text: entry };
  }
  const at = entry?.at ?? entry?.time ?? entry?.iso;
  const t = Number.isFinite(entry?.t) ? entry.t : Date.parse(at);
  return { t, at: at ?? (Number.isFinite(t) ? new Date(t).toISOString() : ""), kind: entry?.kind ?? "", text: entry?.text ?? entry?.line ?? JSON.stringify(entry) };
}

function renderConflicts() {
  const list = $("conflicts");
  clear(list);
  const entries = model.conflicts.map(conflictEntry).slice(-200).reverse();
  for (const c of entries) {
    const kind = ["CONFLICT", "FORCE", "RESOLVED", "OVERRIDE", "DRIFT"].includes(c.kind) ? c.kind.toLowerCase() : "other";
    list.append(el("li", { class: `log-${kind}` },
      el("time", { text: Number.isFinite(c.t) ? `${new Date(c.t).toLocaleString()} ` : `${c.at ?? ""} ` }),
      el("span", { class: `kind kind-${kind}`, text: c.kind || "?" }), " ", el("span", { class: "entry-text", text: c.text })));
  }
  $("conflicts-empty").hidden = entries.length > 0;
}

function renderHistory() {
  const list = $("history");
  clear(list);
  const entries = model.history.slice(-200).reverse();
  for (const h of entries) {
    if (!h || typeof h !== "object") continue;
    const outcome = String(h.outcome ?? "?");
    list.append(el("li", {},
      el("time", { text: `${h.completed_at ?? h.started_at ?? ""} ` }),
      el("span", { class: `kind outcome-${["success", "failed", "abandoned", "orphaned"].includes(outcome) ? outcome : "other"}`, text: outcome }),
      " ", el("strong", { text: `${h.project ?? "?"} ` }), el("span", { class: "entry-text", text: `${h.id ?? ""}: ${clipped(h.task ?? "", 200)}` }),
      h.reason ? el("span", { class: "muted", text: ` (${h.reason})` }) : null,
      h.files_modified?.length ? el("span", { class: "muted", text: ` · ${h.files_modified.length} file(s)` }) : null));
  }
  $("history-empty").hidden = entries.length > 0;
}

// --- decisions ----------------------------------------------------------------------------

let decisionsRoot = null;

async function renderDecisions() {
  const root = $("decisions-project").value;
  const box = $("decisions");
  if (!root) {
    decisionsRoot = null;
    box.replaceChildren(el("p", { class: "empty", text: "No project yet." }));
    return;
  }
  decisionsRoot = root;
  let data;
  try {
    data = await api(`/api/decisions?root=${encodeURIComponent(root)}`);
  } catch (error) {
    box.replaceChildren(el("p", { class: "error", text: `The ledger could not be read: ${error.message}` }));
    return;
  }
  if (decisionsRoot !== root) return; // another project was chosen meanwhile
  const children = [el("p", { class: "muted", text: data.file })];
  if (data.entries) {
    const list = el("ol", { class: "decisions" });
    for (const d of [...data.entries].reverse()) {
      list.append(el("li", { class: d.supersededBy ? "superseded" : "" },
        el("strong", { text: `${d.id} ` }), el("span", { text: d.title ?? d.decision ?? "" }),
        el("div", { class: "muted", text: `${d.when ?? ""}${d.agent ? ` · @${d.agent}` : ""}${d.supersedes ? ` · supersedes ${d.supersedes}` : ""}${d.supersededBy ? ` · superseded by ${d.supersededBy}` : ""}` }),
        d.why ? el("div", { text: `Why: ${d.why}` }) : null));
    }
    children.push(data.entries.length ? list : el("p", { class: "empty", text: "No decision recorded (nso decide \"…\" --why \"…\")." }));
  } else children.push(el("pre", { class: "text", text: data.text || "(empty)" }));
  box.replaceChildren(...children);
}

// --- the stream ---------------------------------------------------------------------------

function applySnapshot(s) {
  model.skew = Number.isFinite(s.generated) ? s.generated - Date.now() : 0;
  model.rows = new Map((s.agents ?? []).map((r) => [r.key, { ...r, asOf: s.generated }]));
  model.instances = s.instances ?? [];
  model.conflicts = s.conflicts ?? [];
  model.history = s.history ?? [];
  model.problems = s.problems ?? [];
  renderAll(null);
}

function applyDelta(d, generated) {
  const changed = new Set();
  for (const row of d.upsert ?? []) {
    model.rows.set(row.key, { ...row, asOf: generated ?? d.generated });
    changed.add(row.key);
  }
  for (const key of d.remove ?? []) model.rows.delete(key);
  if (d.instances) model.instances = d.instances;
  if (d.conflicts) model.conflicts = d.conflicts;
  if (d.history) model.history = d.history;
  if (d.problems) model.problems = d.problems;
  renderAll(changed, d);
  const open = inspectorKey();
  if (open && (changed.has(open) || (d.remove ?? []).includes(open))) refreshInspector();
}

function renderAll(changed, delta) {
  const list = projects();
  const filter = $("project-filter");
  syncProjectSelect(filter, list, { all: "all projects" });
  model.filter = filter.value;
  if (syncProjectSelect($("decisions-project"), list, {}) && !decisionsRoot) renderDecisions();
  if (syncProjectSelect($("mind-project"), list, {}) && !mindRoot()) renderMind();
  renderTable(changed);
  if (!delta || delta.conflicts) renderConflicts();
  if (!delta || delta.history) renderHistory();
  if (!delta || delta.problems) $("problems").replaceChildren(...model.problems.map((p) => el("p", { text: p })));
}

function connect() {
  const conn = $("conn");
  const source = new EventSource(`/events?token=${encodeURIComponent(token)}`);
  source.addEventListener("open", () => {
    conn.textContent = "live";
    conn.className = "conn conn-live";
  });
  source.addEventListener("error", () => {
    conn.textContent = "reconnecting…";
    conn.className = "conn conn-lost";
  });
  source.addEventListener("snapshot", (event) => applySnapshot(JSON.parse(event.data)));
  source.addEventListener("delta", (event) => {
    const delta = JSON.parse(event.data);
    applyDelta(delta, delta.generated);
  });
  source.addEventListener("ledger", (event) => {
    if (JSON.parse(event.data).root === decisionsRoot) renderDecisions();
  });
}

// --- wiring -------------------------------------------------------------------------------

for (const th of document.querySelectorAll("#agents th[data-sort]")) {
  th.querySelector("button").addEventListener("click", () => {
    const key = th.dataset.sort;
    model.sort = { key, dir: model.sort.key === key ? -model.sort.dir : key === "lastSeen" || key === "lastRefusal" ? -1 : 1 };
    renderTable(new Set());
  });
}
$("project-filter").addEventListener("change", () => {
  model.filter = $("project-filter").value;
  if (model.filter) $("decisions-project").value = model.filter;
  if (model.filter) $("mind-project").value = model.filter;
  renderTable(new Set());
  renderDecisions();
  renderMind();
});
$("decisions-project").addEventListener("change", renderDecisions);
$("mind-project").addEventListener("change", renderMind);
$("mind-refresh").addEventListener("click", renderMind);
$("inspector-close").addEventListener("click", closeInspector);
$("inspector-backdrop").addEventListener("click", closeInspector);
// The ages and "last sign of life" move with the clock: only those cells, once a second.
setInterval(() => {
  for (const [key, tr] of trs) {
    const row = model.rows.get(key);
    if (row && !tr.hidden) fillTimes(tr, row);
  }
}, 1000);

connect();
