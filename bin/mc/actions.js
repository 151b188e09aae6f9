// The only changes Mission Control makes: a person releases a claim or forces one, with a
// justification, through the Conductor's own operations (plugin/conductor/store.js: the lock,
// the core's decision, the durable writes), exactly as `nso conductor release` and
// `nso conductor claim --force` would. A force is logged by the core (a FORCE line); a release
// is not, so Mission Control logs it itself (a RESOLVED line), under the same lock.
import os from "node:os";
import path from "node:path";
import { runConductor, isoSeconds } from "../../plugin/conductor/store.js";
import { appendLines, CONFLICTS_FILE, resolveHome } from "../../plugin/conductor/home.js";
import { canonicalClaim } from "../../plugin/conductor/paths.js";

/** Longest justification kept (the core clips a task at 500 characters too). */
export const MAX_JUSTIFICATION = 500;

/** Control characters: a logged line stays one line. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f]+/g;

/** An action the person asked for that cannot be done as asked (400 with the message). */
export class ActionError extends Error {
  constructor(message) {
    super(message);
    this.status = 400;
  }
}

/** Who acts: the person at this machine, through Mission Control. */
export const actor = () => `${safeUser()} (Mission Control)`;

function safeUser() {
  try {
    return os.userInfo().username || "person";
  } catch {
    return "person";
  }
}

/** The justification, trimmed, one line; throws when it is missing. */
export function justification(text) {
  const line = typeof text === "string" ? text.replace(CONTROLS, " ").trim() : "";
  if (!line) throw new ActionError("A justification is required: say why (it is logged in the Conductor's conflicts.log).");
  return line.slice(0, MAX_JUSTIFICATION);
}

/** The claim patterns asked for: a non-empty list of strings, made canonical from `root`. */
function patterns(files, root) {
  if (!Array.isArray(files) || !files.length || files.some((f) => typeof f !== "string" || !f)) {
    throw new ActionError("Name the claim(s): `files` must be a non-empty list of paths or patterns.");
  }
  if (files.length > 100) throw new ActionError("At most 100 claims at once.");
  // Patterns as the Conductor stored them are absolute already and stay as they are.
  return files.map((f) => (path.isAbsolute(f) ? f : canonicalClaim(f, root ?? process.cwd())));
}

/**
 * Releases `files` (claim patterns) of the Conductor instance `instance` in `home`, for
 * `reason`; logs one RESOLVED line per released pattern. Resolves to the core's result
 * (`{status, released, not_held, message}`) or its error.
 */
export async function releaseClaims({ home, instance, files, reason, now = isoSeconds() }) {
  if (typeof instance !== "string" || !instance) throw new ActionError("Name the Conductor instance whose claim to release.");
  const why = justification(reason);
  const op = { operation: "release", instance_id: instance, files: patterns(files, null), reason: why };
  const dir = resolveHome(home);
  const by = actor();
  const answer = await runConductor({
    home: dir, op, now,
    insideLock: (a) => {
      const released = a.result?.released ?? [];
      appendLines(dir, CONFLICTS_FILE, released.map((p) => oneLine(`${now} | RESOLVED | ${by} released ${p} of ${instance}: ${why}`)));
    },
  });
  return answer.error ? { status: "error", error: answer.error } : answer.result;
}

/**
 * Claims `files` for the Conductor instance `instance` over whoever holds them (the core's
 * `force`, logged as FORCE with `justification`). Relative paths are taken from `root`.
 */
export async function forceClaims({ home, instance, files, justification: why, root, now = isoSeconds() }) {
  if (typeof instance !== "string" || !instance) throw new ActionError("Name the Conductor instance that takes the claim.");
  const op = { operation: "claim", instance_id: instance, files: patterns(files, root), force: justification(why), by: actor() };
  const answer = await runConductor({ home: resolveHome(home), op, now });
  return answer.error ? { status: "error", error: answer.error } : answer.result;
}

const oneLine = (text) => text.replace(CONTROLS, " ");
