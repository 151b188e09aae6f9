// `nso init git`, the pure part: the pre-commit hook NSO installs, how an existing hook is
// recognised (NSO's own, one that already runs NSO, or a user's), and the one line that
// chains NSO from a user's hook. The I/O (where the hooks folder is, writing) is in cli.js.

/** The second line of NSO's hook: how NSO knows the hook is its own. */
export const HOOK_MARK = "# nso: pre-commit guard, installed by `nso init git`";

/** `value` quoted for a POSIX shell (single quotes; a `'` inside closed, escaped, reopened). */
export function shQuote(value) {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

/** The command that runs the guard, with the absolute path of NSO's `bin/nso.js`. */
export function guardCommand(nsoJs) {
  return `node ${shQuote(nsoJs)} guard pre-commit`;
}

/** The text of NSO's pre-commit hook. */
export function hookText(nsoJs) {
  return [
    "#!/bin/sh",
    HOOK_MARK,
    "# Re-checks the staged changes against NSO's policy and the Conductor's claims; a refusal",
    "# stops the commit. NSO_AGENT names the committing agent (default: the person, agent `user`).",
    `exec ${guardCommand(nsoJs)}`,
    "",
  ].join("\n");
}

/** The line to add to a user's own hook (a shell script) so that it runs NSO's guard too. */
export function chainLine(nsoJs) {
  return `${guardCommand(nsoJs)} || exit 1`;
}

/**
 * What to do with the hook file whose text is `existing` (undefined: none): `{action, text?}`
 * where `action` is `create` (none yet: write `text`), `current` (NSO's, as it would be
 * written), `update` (NSO's, for another path of NSO: write `text`), `chained` (a user's hook
 * that already runs NSO's guard: leave it) or `foreign` (a user's hook: never touched).
 */
export function planHook(existing, nsoJs) {
  const text = hookText(nsoJs);
  if (existing === undefined) return { action: "create", text };
  if (existing === text) return { action: "current" };
  const lines = existing.split("\n");
  // NSO's own: its mark on the second line and nothing but NSO's lines (a user who added
  // a line of their own made it theirs).
  const ours = lines[1] === HOOK_MARK && lines.length === text.split("\n").length &&
    lines.every((line, i) => i === 4 ? /^exec node .+ guard pre-commit$/.test(line) : line === text.split("\n")[i]);
  if (ours) return { action: "update", text };
  if (/\bguard pre-commit\b/.test(existing)) return { action: "chained" };
  return { action: "foreign" };
}
