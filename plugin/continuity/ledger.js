// The decision ledger's I/O: one append per decision, under an inter-process lock so two
// windows never take the same id. The core (crate/src/continuity/ledger.rs) numbers the entry
// and gives the exact text to append; the file is never rewritten (NSO's authority engine
// also refuses every other change of it, to every agent and tool).
import fs from "node:fs";
import path from "node:path";
import { loadDependency } from "../dependencies.js";

const LOCK_STALE_MS = 10_000;
const LOCK_RETRIES = { retries: 60, factor: 1.3, minTimeout: 15, maxTimeout: 250, randomize: true };

let lockfile = null;

/** A ledger problem with a stable `code` and a `fix`. */
export function ledgerError(code, message, fix) {
  return Object.assign(new Error(message), { code, fix });
}

/** The ledger text, or "" when the file does not exist yet. */
export function readLedger(file) {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    if (error.code === "ENOENT") return "";
    throw ledgerError("ledger_read", `cannot read the decision ledger ${file} (${error.code ?? error.message}).`, "make the file readable.");
  }
}

/** Runs `fn()` holding the ledger's lock (`<ledger>.lock`, a folder made by proper-lockfile). */
export async function withLedgerLock(file, fn, { staleMs = LOCK_STALE_MS } = {}) {
  lockfile ??= (await loadDependency(() => import("proper-lockfile"))).default;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  let release;
  try {
    release = await lockfile.lock(file, {
      realpath: false, lockfilePath: `${file}.lock`, stale: staleMs, update: Math.min(2_000, staleMs / 2), retries: LOCK_RETRIES,
      onCompromised: () => {}, // the append is one write: a lost lock cannot leave half an entry
    });
  } catch (error) {
    throw ledgerError("ledger_locked", `the decision ledger ${file} is locked by another writer (${error.code ?? error.message}).`,
      `try again in a moment; if no NSO is writing, remove ${file}.lock.`);
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => {});
  }
}

/**
 * Appends a decision `{decision, why, agent, session, supersedes}` to the ledger `file`:
 * numbers it from the current text (the core), asks `authorize(newText)` (null, or the
 * refusal text), then appends and syncs. Returns `{id, text}` (`text`: what was appended).
 * `staleMs`: a lock older than this is taken over (its holder died).
 */
export async function appendDecision({ wf, file, entry, now, authorize, staleMs }) {
  return withLedgerLock(file, async () => {
    const current = readLedger(file);
    let out;
    try {
      out = JSON.parse(wf.ledgerAppend(current, JSON.stringify({ ...entry, whenIso: now })));
    } catch (error) {
      throw ledgerError(error.code ?? "ledger_entry", error.message, error.fix ?? "correct the decision and try again.");
    }
    const refusal = await authorize?.(current + out.appendText);
    if (refusal) throw Object.assign(ledgerError("authority", refusal, ""), { name: "NSOBlock" });
    const fd = fs.openSync(file, "a");
    try {
      fs.writeSync(fd, out.appendText);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    return { id: out.id, text: out.appendText };
  }, { staleMs });
}
