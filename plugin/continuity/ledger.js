// The decision ledger's I/O: one append per decision, under an inter-process lock so two
// windows never take the same id. The core (crate/workflow/src/continuity/ledger.rs) numbers the entry
// and gives the exact text to append; the file is never rewritten (NSO's authority engine
// also refuses every other change of it, to every agent and tool).
import fs from "node:fs";
import path from "node:path";
import { nsoError } from "../errors.js";
import { acquireLock } from "../lock.js";

const LOCK_STALE_MS = 10_000;

/** A ledger problem with a stable `code` and a `fix`. */
export const ledgerError = nsoError;

/** The ledger text, or "" when the file does not exist yet. */
export function readLedger(file) {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    if (error.code === "ENOENT") return "";
    throw ledgerError("ledger_read", `cannot read the decision ledger ${file} (${error.code ?? error.message}).`, "make the file readable.");
  }
}

/**
 * Runs `fn(lock)` holding the ledger's lock (`<ledger>.lock`, a folder; NSO's one lock module).
 * `fn` calls `lock.assertHeld()` right before it writes.
 */
export async function withLedgerLock(file, fn, { staleMs = LOCK_STALE_MS } = {}) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const dir = `${file}.lock`;
  const locked = (why) => ledgerError("ledger_locked", `the decision ledger ${file} is locked by another writer (${why}).`,
    `try again in a moment; if no NSO is writing, remove ${dir}.`);
  const lock = await acquireLock(dir, {
    staleMs,
    waitMs: staleMs + 5_000, // more than staleMs: a stale lock is always broken before giving up
    errors: {
      locked: (holder) => locked(holder),
      lost: () => ledgerError("ledger_locked", `the decision ledger's lock ${dir} was taken over while this writer held it; nothing was written.`,
        "record the decision again."),
      io: (error) => locked(error.code ?? error.message),
    },
  });
  try {
    return await fn(lock);
  } finally {
    await lock.release();
  }
}

/**
 * Appends a decision `{decision, why, agent, session, supersedes}` to the ledger `file`:
 * numbers it from the current text (the core), asks `authorize(newText)` (null, or the
 * refusal text), then appends and syncs. Returns `{id, text}` (`text`: what was appended).
 * `staleMs`: a lock older than this is taken over (its holder died).
 */
export async function appendDecision({ wf, file, entry, now, authorize, staleMs }) {
  return withLedgerLock(file, async (lock) => {
    const current = readLedger(file);
    let out;
    try {
      out = JSON.parse(wf.ledgerAppend(current, JSON.stringify({ ...entry, whenIso: now })));
    } catch (error) {
      throw ledgerError(error.code ?? "ledger_entry", error.message, error.fix ?? "correct the decision and try again.");
    }
    const refusal = await authorize?.(current + out.appendText);
    if (refusal) throw ledgerError("authority", refusal, "", { name: "NSOBlock" });
    lock.assertHeld(); // a writer that stalled past staleMs may not append: its id may be taken
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
