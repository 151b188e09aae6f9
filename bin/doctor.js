// `nso doctor`: is NSO set up and working for this project? Each check says what it found and,
// when something is wrong, the fix. Exit 0 only when every check passes (a warning, such as
// an empty config that uses the defaults, does not fail it); --json prints the same as data.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { isNsoEntry, isPackageEntry } from "./init/opencode.js";
import { CONFIG_FILE, PACKAGE_ROOT, projectRoot } from "./init/project.js";
import { readIfExists } from "./init/json-file.js";
import { agentRights } from "./init/rights.js";
import { configProblems } from "./config-check.js";

export const DOCTOR_USAGE = "  nso doctor [--json] [--dir DIR]";

const ok = (name, detail) => ({ name, status: "ok", detail });
const warn = (name, detail, fix) => ({ name, status: "warn", detail, fix });
const bad = (name, detail, fix) => ({ name, status: "fail", detail, fix });

/** The JSON (comments allowed) of an OpenCode config file, or undefined. */
function readJsonc(file) {
  const text = readIfExists(file);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text.replace(/^\s*\/\/.*$/gm, "").replace(/,(\s*[}\]])/g, "$1"));
  } catch {
    return null;
  }
}

function pluginCheck(root) {
  const name = "plugin";
  for (const folder of [".opencode/plugins", ".opencode/plugin"]) {
    let files = [];
    try {
      files = fs.readdirSync(path.join(root, folder));
    } catch {
      continue;
    }
    for (const f of files) {
      if (/nso-plugin\.js|["']nso-opencode["']/.test(readIfExists(path.join(root, folder, f)) ?? "")) return ok(name, `loaded by the project plugin file ${folder}/${f}`);
    }
  }
  for (const rel of ["opencode.jsonc", "opencode.json", ".opencode/opencode.jsonc", ".opencode/opencode.json"]) {
    const file = path.join(root, rel);
    const config = readJsonc(file);
    if (config === null) return bad(name, `${rel} is not valid JSON, so OpenCode cannot read its plugin list.`, `correct ${rel}.`);
    const entry = (Array.isArray(config?.plugin) ? config.plugin : []).map((e) => (Array.isArray(e) ? e[0] : e)).find(isNsoEntry);
    if (entry === undefined) continue;
    if (isPackageEntry(entry)) {
      return bad(name, `${rel} names NSO by package (${JSON.stringify(entry)}): OpenCode installs such a plugin from the npm registry, where NSO is not published, so it does not load.`,
        "run `nso init opencode`: it replaces the entry with the path of NSO's plugin file.");
    }
    const target = path.resolve(path.dirname(file), entry.replace(/^file:\/\//, ""));
    if (!fs.existsSync(target)) return bad(name, `${rel} loads NSO from ${entry}, but ${target} does not exist.`, "run `nso init opencode` again to write the right entry.");
    return ok(name, `${rel} loads ${entry}`);
  }
  return bad(name, "no OpenCode config of this project loads NSO (opencode.json has no NSO entry in \"plugin\").", "run `nso init opencode`.");
}

function configCheck(root) {
  const file = path.join(root, CONFIG_FILE);
  const text = readIfExists(file);
  if (text === undefined) return { check: warn("config", `${CONFIG_FILE} is not present: NSO uses its defaults (preset nso, enforcing).`, "run `nso init opencode` to choose a preset."), text };
  const { problems, empty } = configProblems(text);
  if (problems.length) {
    return { check: bad("config", `${CONFIG_FILE} has ${problems.length} problem(s):\n${problems.map((p) => `${p.path}: ${p.problem} Fix: ${p.fix}`).join("\n")}`, "correct them (`nso check` lists them with their codes)."), problems };
  }
  if (empty) return { check: warn("config", `${CONFIG_FILE} is empty: NSO uses its defaults (preset nso, enforcing).`, "set authority.preset (see docs/configuration.md)."), text };
  const mode = JSON.parse(text).authority?.mode ?? "enforce";
  return { check: ok("config", `${CONFIG_FILE} is valid (${mode === "audit" ? "audit mode: nothing is refused yet; `nso enforce` switches" : "enforcing"})`), text };
}

function dependencyCheck() {
  const require = createRequire(path.join(PACKAGE_ROOT, "package.json"));
  const deps = Object.keys(JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")).dependencies ?? {});
  const missing = deps.filter((d) => {
    try {
      require.resolve(`${d}/package.json`);
      return false;
    } catch {
      return true;
    }
  });
  return missing.length
    ? bad("dependencies", `NSO's dependencies are not installed: ${missing.join(", ")} (looked for from ${PACKAGE_ROOT}).`, `run \`npm install\` in ${PACKAGE_ROOT} (or reinstall the nso-opencode package).`)
    : ok("dependencies", `installed: ${deps.join(", ")}`);
}

async function coreCheck() {
  try {
    const { loadCore } = await import("../plugin/core-loader.js");
    return ok("core", `the decision core loads (version ${loadCore().version()})`);
  } catch (error) {
    return bad("core", `the decision core does not load: ${error.message}`, "reinstall NSO (pkg/ holds the built core; in a checkout: npm run build).");
  }
}

function selfTest(root, text) {
  let rights;
  try {
    rights = agentRights(root, text);
  } catch (error) {
    return bad("self-test", `no decision could be made: ${error.problem ?? error.message}`, error.fix ?? "correct the config.");
  }
  const sample = (want) => {
    for (const r of rights.filter((x) => x.known)) {
      for (const [kind, tool] of [["writes", "write"], ["runs", "bash"]]) {
        const found = Object.entries(r[kind]).find(([, allowed]) => allowed === want);
        if (found) return `@${r.agent} ${tool} ${found[0]}`;
      }
    }
    return undefined;
  };
  const allowed = sample(true);
  const refused = sample(false);
  if (!allowed) return bad("self-test", "the policy allows none of the sample calls to any agent.", "check authority in .opencode/nso.json (`nso explain` shows why).");
  if (!refused) return warn("self-test", `allowed: ${allowed}; the policy refuses none of the sample calls (is it preset none?).`, "choose a preset that governs the agents (docs/authority.md).");
  return ok("self-test", `allowed: ${allowed}; refused: ${refused} (enforcing view)`);
}

async function storeCheck(root, text) {
  let conductor = {};
  try {
    conductor = JSON.parse(text || "{}").conductor ?? {};
  } catch {
    // the config check names it
  }
  const { openStore, closeStores } = await import("../plugin/conductor/stores.js");
  const store = openStore(conductor, { root });
  try {
    await store.run({ op: { operation: "status" } });
    return ok("claim store", `reachable: ${store.describe ?? store.home ?? store.kind}`);
  } catch (error) {
    return bad("claim store", error.message, error.fix ?? "check conductor.store in .opencode/nso.json (docs/conductor.md).");
  } finally {
    await closeStores();
  }
}

function recentCheck(root, text) {
  let logDir = ".opencode/logs";
  try {
    logDir = JSON.parse(text || "{}").logDir ?? logDir;
  } catch {
    // the default
  }
  const lines = (file) => (readIfExists(path.join(root, logDir, file)) ?? "").split("\n").filter(Boolean);
  const refusals = lines("nso.log").filter((l) => / block /.test(l)).slice(-5);
  const audits = lines("audit.jsonl");
  const detail = [`${refusals.length ? `last refusals:\n${refusals.map((l) => `  ${l.slice(0, 200)}`).join("\n")}` : "no refusals logged"}`,
    `${audits.length} audit record(s) (calls audit mode let through; \`nso audit\` summarises them)`].join("\n");
  return ok("recent", detail);
}

/** Runs `nso doctor` with `argv`; resolves to the exit status. */
export async function doctorMain(argv) {
  const json = argv.includes("--json");
  const i = argv.indexOf("--dir");
  const root = projectRoot(i >= 0 ? argv[i + 1] : undefined);
  const config = configCheck(root);
  const checks = [pluginCheck(root), config.check, dependencyCheck(), await coreCheck()];
  if (!config.problems) {
    checks.push(selfTest(root, config.text));
    checks.push(await storeCheck(root, config.text));
  }
  checks.push(recentCheck(root, config.text));
  const healthy = checks.every((c) => c.status !== "fail");
  if (json) process.stdout.write(`${JSON.stringify({ ok: healthy, project: root, checks }, null, 2)}\n`);
  else {
    const mark = { ok: "ok  ", warn: "warn", fail: "FAIL" };
    for (const c of checks) {
      process.stdout.write(`[${mark[c.status]}] ${c.name}: ${c.detail.replace(/\n/g, "\n       ")}\n`);
      if (c.fix) process.stdout.write(`       Fix: ${c.fix}\n`);
    }
    process.stdout.write(healthy ? "NSO is set up for this project.\n" : "NSO is not fully set up: see FAIL above.\n");
  }
  return healthy ? 0 : 1;
}
