// Mind for one project: ingestion of the sessions' raw lanes into observations and
// reflections (decided by the core, crate/workflow/src/mind), hand moves, and Insight's answers.
// Ingestion is incremental: a lane whose size and time are those of the checkpoint is not
// read again; a grown one is read whole (its records are the latest state of each message),
// and only new or changed observations are appended. One ingestion at a time per project
// (the lock in the Mind folder); a killed one resumes from the checkpoint and duplicates
// nothing, since unchanged records are never written twice.
import fs from "node:fs";
import path from "node:path";
import { acquireLock } from "../lock.js";
import { readText } from "../decision/files.js";
import { makeStateDir } from "../state-dirs.js";
import { loadWorkflowCore } from "../core-loader.js";
import { FILES, appendRecords, kept, readCheckpoint, writeCheckpoint } from "./store.js";
import { runProvider } from "./provider.js";

/** Most skipped lines named in a report (the rest are counted). */
const MAX_NAMED = 20;

/**
 * Mind of the project at `root`: `dir()` is the continuity folder, `wf(fn)` runs `fn` with
 * the workflow package, `ledgerFile()` the decision ledger's path, `errorLog(text)` records
 * what went wrong (a provider that failed).
 */
export function createMind({ root, dir, wf, ledgerFile, errorLog = () => {} }) {
  const home = () => path.join(dir(), "mind");
  const file = (name) => path.join(home(), FILES[name]);
  const lanesDir = () => path.join(dir(), "transcripts");
  /** One of Mind's files (`FILES`), "" before it exists. */
  const read = (name) => readText(file(name)) ?? "";

  /** Runs `fn` holding Mind's lock. */
  async function locked(fn) {
    makeStateDir(home(), { root });
    const lock = await acquireLock(path.join(home(), "mind.lock"));
    try {
      return await fn(lock);
    } finally {
      await lock.release();
    }
  }

  /** The raw lanes to read, sorted by name (the order makes the artifacts reproducible). */
  function laneFiles() {
    try {
      return fs.readdirSync(lanesDir()).filter((n) => n.endsWith(".raw.jsonl")).sort().map((n) => path.join(lanesDir(), n));
    } catch {
      return [];
    }
  }

  /**
   * The provider's rewording of one pass's `records` (`kind`: observations or reflection), or
   * the records unchanged when it fails (logged, counted in `report.providerFailures`).
   */
  async function refined(provider, kind, pass, records, report) {
    let why;
    if (pass.input == null) why = `its input has ${pass.bytes} bytes, over maxInputBytes (${provider.maxInputBytes})`;
    else {
      const result = await runProvider(provider, pass.input, { cwd: root });
      if (result.error) why = result.error;
      else {
        try {
          return JSON.parse(wf((w) => w.mindRefine(kind, JSON.stringify(records), result.answer)));
        } catch (error) {
          why = `its answer was refused: ${error.message}`;
        }
      }
    }
    report.providerFailures++;
    errorLog(`Mind's provider ${provider.name} on ${pass.what}: ${why}; the deterministic records stand.`);
    return records;
  }

  /** `out.append` with the provider's rewordings of each pass (`out.passes`). */
  async function refineObservations(provider, out, report) {
    const byId = new Map(out.append.map((o, i) => [o.id, i]));
    for (const pass of out.passes ?? []) {
      const records = pass.ids.map((id) => out.append[byId.get(id)]);
      const list = await refined(provider, "observations", pass, records, report);
      for (const o of list) out.append[byId.get(o.id)] = o;
    }
    return out.append;
  }

  /**
   * Reads new lane content (and `exports`: `opencode export` files, read every time) into
   * the artifacts. Returns `{lanes, read, unchanged, appended, superseded, sessions, events,
   * reflections, skipped, skippedLines, ms}`; `skipped` names skipped lines (`file: line N: why`).
   */
  async function ingest({ exports = [], rebuild = false } = {}) {
    const started = performance.now();
    return locked(async (lock) => {
      if (rebuild) {
        lock.assertHeld();
        for (const name of ["observations", "reflections", "checkpoint"]) fs.rmSync(file(name), { force: true });
      }
      const checkpoint = readCheckpoint(file("checkpoint"));
      const known = kept(read("observations"));
      const provider = JSON.parse(wf((w) => w.mindProvider()));
      const report = { lanes: 0, read: 0, unchanged: 0, appended: 0, superseded: 0, sessions: 0, events: 0, reflections: 0, skipped: [], skippedLines: 0, providerFailures: 0 };
      const sources = [...laneFiles().map((f) => ({ f, export: false })), ...exports.map((f) => ({ f: path.resolve(f), export: true }))];
      for (const { f, export: isExport } of sources) {
        report.lanes++;
        let stat;
        try {
          stat = fs.statSync(f);
        } catch (error) {
          report.skipped.push(`${f}: cannot be read (${error.code ?? error.message})`);
          continue;
        }
        const name = isExport ? `export:${f}` : path.basename(f);
        const seen = checkpoint.lanes[name];
        if (!isExport && seen && seen.bytes === stat.size && seen.mtimeMs === stat.mtimeMs) {
          report.unchanged++;
          continue;
        }
        const text = fs.readFileSync(f, "utf8");
        const out = JSON.parse(wf((w) => w.mindDistill(text, isExport, root, JSON.stringify(known))));
        if (provider) out.append = await refineObservations(provider, out, report);
        lock.assertHeld();
        appendRecords(file("observations"), out.append);
        for (const o of out.append) {
          known[o.id] = { rev: o.rev, basis: o.basis ?? null };
          if (o.supersedes) report.superseded++;
        }
        report.read++;
        report.appended += out.append.length;
        report.sessions += out.sessions.length;
        report.events += out.events;
        for (const w of out.warnings) {
          report.skippedLines++;
          if (report.skipped.length < MAX_NAMED) report.skipped.push(`${path.relative(root, f) || f}: ${w}`);
        }
        checkpoint.lanes[name] = { bytes: Buffer.byteLength(text), mtimeMs: stat.mtimeMs, sessions: out.sessions, skipped: out.warnings.length };
        writeCheckpoint(file("checkpoint"), checkpoint);
      }
      report.reflections = await reflect(lock, provider, report);
      report.ms = Math.round(performance.now() - started);
      return report;
    });
  }

  /**
   * Appends the reflections that are new or changed (compared with what a refined one was made
   * from), reworded by the `provider` if any; returns how many.
   */
  async function reflect(lock, provider = null, report = { providerFailures: 0 }) {
    const list = JSON.parse(wf((w) => w.mindReflect(read("observations"), read("moves"))));
    const known = kept(read("reflections"));
    const fresh = list.filter((r) => (known[r.id]?.basis ?? known[r.id]?.rev) !== r.rev)
      .map((r) => (known[r.id] ? { ...r, supersedes: `${r.id}@${known[r.id].rev}` } : r));
    if (provider?.reflections) {
      for (let i = 0; i < fresh.length; i++) {
        const pass = JSON.parse(wf((w) => w.mindReflectionPass(JSON.stringify(fresh[i]))));
        fresh[i] = await refined(provider, "reflection", pass, fresh[i], report);
      }
    }
    lock.assertHeld();
    appendRecords(file("reflections"), fresh);
    return fresh.length;
  }

  /** Moves artifact `id` to `segment` by hand (a configured segment, `global` or `uncertain`). */
  async function move(id, segment) {
    const segments = [...JSON.parse(wf((w) => w.mindSegments())), "global", "uncertain"];
    if (!segments.includes(segment)) {
      throw Object.assign(new Error(`there is no segment "${segment}".`), { code: "mind_segment", fix: `use one of: ${segments.join(", ")} (segments are configured in continuity.mind.segments).` });
    }
    return locked(async (lock) => {
      const ids = { ...kept(read("observations")), ...kept(read("reflections")) };
      if (!(id in ids)) throw Object.assign(new Error(`there is no artifact "${id}".`), { code: "mind_unknown", fix: "copy an id from `nso insight --refs` or `nso mind status --json`." });
      lock.assertHeld();
      appendRecords(file("moves"), [{ id, segment }]);
      await reflect(lock);
      return { id, segment };
    });
  }

  /** The artifacts as the core's Insight reads them. */
  function corpus() {
    const handoffs = [];
    const folder = path.join(dir(), "handoffs");
    try {
      for (const name of fs.readdirSync(folder).filter((n) => n.endsWith(".md") && n !== "latest.md").sort()) {
        handoffs.push({ name, text: fs.readFileSync(path.join(folder, name), "utf8") });
      }
    } catch {
      // no handoffs kept yet
    }
    let ledger = null;
    try {
      ledger = fs.readFileSync(ledgerFile(), "utf8");
    } catch {
      // no ledger yet
    }
    return { observations: read("observations"), reflections: read("reflections"), moves: read("moves"), ledger, handoffs };
  }

  /** An index over the artifacts as they are now (the caller frees it with `free()`). */
  function index() {
    return new (loadWorkflowCore().MindIndex)(JSON.stringify(corpus()));
  }

  /** The answer to `question` (`mode`: brief, refs, snips; `segment` restricts). */
  function ask(question, { mode = "brief", segment } = {}) {
    const idx = index();
    try {
      return JSON.parse(idx.ask(question, mode, segment ?? undefined));
    } finally {
      idx.free();
    }
  }

  /** Lines for the handoff of a session with `digest` (its segments and tasks), at most `limit`. */
  function handoffLines(digest, limit) {
    if (!fs.existsSync(file("observations"))) return [];
    const text = read("observations");
    const mine = text.split("\n").filter((l) => digest?.session && l.includes(`"session":${JSON.stringify(digest.session)}`));
    const segments = new Set();
    for (const l of mine) {
      try {
        segments.add(JSON.parse(l).place.segment);
      } catch {
        // skipped
      }
    }
    segments.delete("global");
    const tasks = (digest?.tasks ?? []).map((t) => t.task);
    const idx = index();
    try {
      return JSON.parse(idx.handoffLines(JSON.stringify([...segments]), JSON.stringify(tasks), digest?.session ?? undefined, limit));
    } finally {
      idx.free();
    }
  }

  /** Counts of the artifacts: by kind and segment, lanes read, the last ingestion's skipped lines. */
  function status() {
    const obs = Object.values(latest(read("observations")));
    const refl = Object.values(latest(read("reflections")));
    const count = (list, key) => list.reduce((m, o) => ((m[key(o)] = (m[key(o)] ?? 0) + 1), m), {});
    const checkpoint = readCheckpoint(file("checkpoint"));
    return {
      folder: home(), observations: obs.length, reflections: refl.length,
      byKind: count(obs, (o) => o.kind), bySegment: count(obs, (o) => o.place?.segment ?? "?"),
      lanes: Object.keys(checkpoint.lanes).length, skippedLines: Object.values(checkpoint.lanes).reduce((n, l) => n + (l.skipped ?? 0), 0),
      moves: read("moves").split("\n").filter(Boolean).length,
    };
  }

  return { ingest, move, ask, handoffLines, status, corpus, folder: home, laneFiles };
}

/** The latest record of each id. */
function latest(text) {
  const out = {};
  for (const line of text.split("\n")) {
    try {
      if (line.trim()) {
        const r = JSON.parse(line);
        out[r.id] = r;
      }
    } catch {
      // damaged line: skipped
    }
  }
  return out;
}
