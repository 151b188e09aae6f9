// What every `nso` command does the same way: short help from its usage lines, "did you mean"
// for a mistyped command or flag, a `--dir` that must exist, and errors as JSON under `--json`
// (one shape: `{"error": {"code", "message", "fix"}}` on stdout, exit status unchanged).
import fs from "node:fs";
import path from "node:path";

/** A mistake in how a command was called: exit status 2. */
export class UsageError extends Error {
  constructor(message, { code = "usage", fix } = {}) {
    super(message);
    this.code = code;
    this.fix = fix;
  }
}

function editDistance(a, b) {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
}

/** The candidate nearest to `word` when it is close enough to be what was meant. */
export function closest(word, candidates) {
  let best;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  const limit = Math.max(2, Math.floor(String(word).length / 3));
  return bestDistance <= limit ? best : undefined;
}

/** ` Did you mean "x"?` for `word` among `candidates`, or "". */
export function didYouMean(word, candidates) {
  const near = closest(word, candidates);
  return near ? ` Did you mean ${JSON.stringify(near)}?` : "";
}

/**
 * The flags a command documents in its usage lines: `{flags: Set, withValue: Set}`. A flag is
 * followed by its value's name (`--dir DIR`, `--since 7d|24h`) or stands alone (`[--json]`).
 */
export function flagsOf(usage) {
  const flags = new Set(["--help"]);
  const withValue = new Set();
  for (const m of usage.matchAll(/(--[a-z][a-z0-9-]*)(\s+([^\s[\]|()]+))?/g)) {
    flags.add(m[1]);
    if (m[3] !== undefined && !m[3].startsWith("-") && !m[3].startsWith("\"--")) withValue.add(m[1]);
  }
  return { flags, withValue };
}

/** Whether `argv` asks for help: `-h` or `--help` anywhere but as another flag's value. */
export function wantsHelp(argv, usage) {
  const { withValue } = flagsOf(usage);
  return argv.some((a, i) => (a === "--help" || a === "-h") && !withValue.has(argv[i - 1]));
}

/**
 * Checks every `--flag` of `argv` against the command's usage lines; throws a
 * {@link UsageError} naming the nearest documented flag for one it does not know.
 */
export function checkFlags(command, argv, usage) {
  const { flags, withValue } = flagsOf(usage);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (withValue.has(arg)) {
      i++;
      continue;
    }
    if (arg === "--" ) break;
    if (!arg.startsWith("--")) continue;
    const name = arg.split("=")[0];
    if (!flags.has(name)) {
      throw new UsageError(`nso ${command}: unknown argument ${JSON.stringify(arg)}.${didYouMean(name, [...flags])}`,
        { fix: `see \`nso ${command} --help\`.` });
    }
  }
}

/** The value of `--dir` in `argv`, checked: a folder that exists (else a {@link UsageError}). */
export function checkDir(command, argv) {
  const i = argv.indexOf("--dir");
  if (i < 0) return undefined;
  const dir = argv[i + 1];
  if (dir === undefined || dir.startsWith("--")) throw new UsageError(`nso ${command}: --dir needs a value.`, { fix: "give the project folder: --dir DIR." });
  let stat;
  try {
    stat = fs.statSync(dir);
  } catch {
    throw new UsageError(`nso ${command}: --dir ${dir}: no such folder (${path.resolve(dir)}).`, { code: "no_such_dir", fix: "give an existing project folder, or leave --dir out for the current one." });
  }
  if (!stat.isDirectory()) throw new UsageError(`nso ${command}: --dir ${dir} is not a folder.`, { code: "not_a_dir", fix: "give the project folder, not a file in it." });
  return dir;
}

/**
 * Reports `error` as the command's caller asked: under `--json` as `{"error": {...}}` on
 * stdout, else as text on stderr (the message, then `Fix: ...`). Returns the exit status
 * (`error.exit`, else 2 for a usage error, else 1).
 */
export function reportError(error, { json = false } = {}) {
  const exit = error.exit ?? (error instanceof UsageError ? 2 : 1);
  const code = error.code ?? (exit === 2 ? "usage" : "error");
  if (json) {
    process.stdout.write(`${JSON.stringify({ error: { code, message: error.message, fix: error.fix ?? null } }, null, 2)}\n`);
  } else {
    process.stderr.write(`${error.message}${error.fix ? `\nFix: ${error.fix}` : ""}\n`);
  }
  return exit;
}

/**
 * A command's short help: its usage lines, what it does, one example, and where the
 * reference is (docs/cli.md).
 */
export function shortHelp({ name, summary, usage, example }) {
  const anchor = name.split(" ")[0];
  return [
    "usage:", usage, "",
    summary, "",
    "example:", `  ${example}`, "",
    `More: docs/cli.md#${anchor} (nso --help lists every command).`,
  ].join("\n");
}

/** The overview `nso --help` prints: one line per command. */
export function overview(commands, version) {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    `nso ${version}: governance for OpenCode and Claude Code agents.`, "",
    "usage: nso COMMAND [FLAGS]   (nso COMMAND --help for one command)", "",
    "commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary.split("\n")[0]}`), "",
    "common flags: --dir DIR (the project folder; default: the current one), --json, -h/--help.",
    "Reference: docs/cli.md",
  ].join("\n");
}

/**
 * Runs `run` (a command's main: resolves to its exit status) so that under `--json` a failure
 * that printed only text on stderr also prints the JSON error shape on stdout: every command
 * answers `--json` with JSON, whoever wrote its error. Stderr is passed through unchanged.
 */
export async function withJsonErrors(run) {
  const { stdout, stderr } = process;
  const writeOut = stdout.write.bind(stdout);
  const writeErr = stderr.write.bind(stderr);
  let wroteOut = false;
  let errText = "";
  stdout.write = (chunk, ...rest) => {
    wroteOut = true;
    return writeOut(chunk, ...rest);
  };
  stderr.write = (chunk, ...rest) => {
    errText += String(chunk);
    return writeErr(chunk, ...rest);
  };
  let exit;
  try {
    exit = await run();
  } finally {
    stdout.write = writeOut;
    stderr.write = writeErr;
  }
  if (exit !== 0 && !wroteOut && errText.trim()) {
    // NSO's own log lines (`[nso] ...`) are not the error.
    const [message, fix] = errText.split("\n").filter((l) => !l.startsWith("[nso] ")).join("\n").trim().split(/\nFix: /);
    const text = message.split("\n\nusage:")[0].trim();
    writeOut(`${JSON.stringify({ error: { code: exit === 2 ? "usage" : "error", message: text, fix: fix?.trim() ?? null } }, null, 2)}\n`);
  }
  return exit;
}
