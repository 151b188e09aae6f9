// OpenCode recordings for `nso replay`: the JSON of `opencode export <id>` (one session, or an
// array of them) and NSO's own raw lane (`<continuity.dir>/transcripts/<id>.raw.jsonl`). Each
// becomes sessions of tool calls in the order OpenCode made them. Read tolerantly: unknown
// fields and part types are ignored, a malformed message or part is reported and skipped.
// Shapes: tests/fixtures/continuity/opencode/README.md (OpenCode 1.18.33).

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const str = (v) => (typeof v === "string" && v ? v : undefined);
/** OpenCode reports worktree "/" outside git: then the folder is the project. */
const rootOf = (root, directory) => (root && root !== "/" ? root : directory);

/** Messages by (created time, id), unknown times last, as the continuity parser orders them. */
function byCreated(a, b) {
  const ta = a.info?.time?.created;
  const tb = b.info?.time?.created;
  const ka = typeof ta === "number" ? ta : Infinity;
  const kb = typeof tb === "number" ? tb : Infinity;
  if (ka !== kb) return ka < kb ? -1 : 1;
  return String(a.info?.id ?? "") < String(b.info?.id ?? "") ? -1 : String(a.info?.id ?? "") > String(b.info?.id ?? "") ? 1 : 0;
}

/** Parts by id: OpenCode's ids ascend in creation order. */
const byId = (a, b) => (String(a.id ?? "") < String(b.id ?? "") ? -1 : String(a.id ?? "") > String(b.id ?? "") ? 1 : 0);

/**
 * The recorded change of an `edit` as a unified diff (OpenCode's `metadata.filediff.patch`,
 * else `metadata.diff`): the replay applies it when `oldString` does not occur exactly (OpenCode
 * also matches with normalised whitespace and line endings).
 */
function recordedDiff(metadata) {
  if (!isObject(metadata)) return undefined;
  return str(metadata.filediff?.patch) ?? str(metadata.diff);
}

/**
 * The sessions of one exported session `doc` (`{info, messages}`); `where` names it in
 * warnings (`export.json`, `export.json: [2]`). Returns `{session, warnings}`, or a warning
 * alone when `doc` is no export.
 */
export function sessionFromExport(doc, where) {
  const warnings = [];
  if (!isObject(doc) || !Array.isArray(doc.messages)) {
    return { session: null, warnings: [`${where}: not an OpenCode export (no "messages" list) — skipped`] };
  }
  const info = isObject(doc.info) ? doc.info : {};
  const messages = [];
  doc.messages.forEach((m, i) => {
    if (!isObject(m) || !isObject(m.info)) warnings.push(`${where}: messages[${i}]: not a message ({info, parts}) — skipped`);
    else messages.push({ ...m, index: i });
  });
  messages.sort(byCreated);
  const id = str(info.id) ?? str(messages[0]?.info?.sessionID) ?? where;
  const session = {
    id, key: id, host: "opencode", parent: str(info.parentID) ?? null, agent: str(info.agent),
    directory: str(info.directory), root: undefined, title: str(info.title), calls: [],
  };
  for (const m of messages) {
    const mi = m.info;
    if (mi.role !== "assistant") continue;
    const parts = Array.isArray(m.parts) ? m.parts : [];
    if (m.parts !== undefined && !Array.isArray(m.parts)) warnings.push(`${where}: messages[${m.index}].parts: not a list — skipped`);
    const directory = str(mi.path?.cwd) ?? session.directory;
    const root = rootOf(str(mi.path?.root), directory);
    session.root ??= root;
    const indexed = parts.map((p, j) => ({ p, j })).sort((a, b) => byId(a.p ?? {}, b.p ?? {}));
    for (const { p, j } of indexed) {
      if (!isObject(p)) {
        warnings.push(`${where}: messages[${m.index}].parts[${j}]: not a part — skipped`);
        continue;
      }
      if (p.type !== "tool") continue;
      if (!str(p.tool) || !isObject(p.state)) {
        warnings.push(`${where}: messages[${m.index}].parts[${j}]: tool part without tool or state — skipped`);
        continue;
      }
      const state = p.state;
      const metadata = isObject(state.metadata) ? state.metadata : {};
      session.calls.push({
        session: id, callID: str(p.callID), hostTool: p.tool, tool: p.tool,
        args: isObject(state.input) ? state.input : {},
        agent: str(mi.agent) ?? str(mi.mode),
        directory, root,
        status: str(state.status) ?? "unknown",
        completed: state.status === "completed",
        time: typeof state.time?.start === "number" ? state.time.start : mi.time?.created,
        child: p.tool === "task" ? str(metadata.sessionId) : undefined,
        recorded: { diff: recordedDiff(metadata) },
        where: `${where}: messages[${m.index}].parts[${j}]`,
      });
    }
  }
  session.root ??= rootOf(undefined, session.directory);
  return { session, warnings };
}

/**
 * The sessions of an `opencode export` document: one export or a list of them.
 * Returns `{sessions, warnings}`.
 */
export function sessionsFromExportDocument(doc, file) {
  const docs = Array.isArray(doc) ? doc.map((d, i) => [d, `${file}: [${i}]`]) : [[doc, file]];
  const sessions = [];
  const warnings = [];
  for (const [d, where] of docs) {
    const r = sessionFromExport(d, where);
    warnings.push(...r.warnings);
    if (r.session) sessions.push(r.session);
  }
  return { sessions, warnings };
}

/** Whether a parsed JSON line is a record of NSO's raw lane. */
export const isLaneRecord = (r) => isObject(r) && r.v === 1 && ["session", "message", "part"].includes(r.kind);

/**
 * The sessions of NSO's raw lane records `[{record, line}]` (a later record of the same
 * session, message or part replaces an earlier one, as in the continuity parser).
 */
export function sessionsFromLane(records, file) {
  const warnings = [];
  const sessions = new Map(); // id -> {info, messages: Map(id -> {info, parts: Map})}
  const sessionOf = (id) => {
    if (!sessions.has(id)) sessions.set(id, { info: { id }, messages: new Map() });
    return sessions.get(id);
  };
  const messageOf = (s, id) => {
    if (!s.messages.has(id)) s.messages.set(id, { info: { id }, parts: new Map() });
    return s.messages.get(id);
  };
  for (const { record: r, line } of records) {
    if (r.kind === "session" && str(r.info?.id)) sessionOf(r.info.id).info = r.info;
    else if (r.kind === "message" && str(r.info?.id) && str(r.info?.sessionID)) {
      messageOf(sessionOf(r.info.sessionID), r.info.id).info = r.info;
    } else if (r.kind === "part" && str(r.part?.id) && str(r.part?.messageID) && str(r.part?.sessionID)) {
      messageOf(sessionOf(r.part.sessionID), r.part.messageID).parts.set(r.part.id, r.part);
    } else warnings.push(`${file}:${line}: ${r.kind} record without its ids — skipped`);
  }
  const out = [];
  for (const s of sessions.values()) {
    const doc = { info: s.info, messages: [...s.messages.values()].map((m) => ({ info: { role: "assistant", ...m.info }, parts: [...m.parts.values()] })) };
    const r = sessionFromExport(doc, `${file} (session ${s.info.id})`);
    warnings.push(...r.warnings);
    if (r.session) out.push(r.session);
  }
  return { sessions: out, warnings };
}
