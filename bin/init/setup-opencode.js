// `nso init opencode` and `nso enforce`: NSO's entry in OpenCode's config (a path relative to
// the config file, through node_modules when NSO is installed there), a `.opencode/nso.json`
// with its schema and a preset in audit mode, what each of the project's agents may then do,
// and the switch to enforcing. Nothing of the user's is overwritten; `--dry-run` shows every
// change and makes none.
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline/promises";
import { replaceFile } from "../../plugin/atomic-file.js";
import { InitError, jsonText, parseObject, readIfExists } from "./json-file.js";
import { mergeOpencodeConfig, pluginEntry, relativeEntry } from "./opencode.js";
import { CONFIG_FILE, PACKAGE_ROOT, SETTINGS_FILE, policyOf, projectRoot, reachableRoot } from "./project.js";
import { agentRights, presetNames, rightsText } from "./rights.js";

/** A project plugin file (`.opencode/plugin(s)/*.js`) that already loads NSO, if any. */
function pluginFileLoadingNso(root) {
  for (const folder of [".opencode/plugins", ".opencode/plugin"]) {
    let names = [];
    try {
      names = fs.readdirSync(path.join(root, folder));
    } catch {
      continue;
    }
    for (const name of names.filter((n) => /\.[cm]?[jt]s$/.test(n))) {
      const text = readIfExists(path.join(root, folder, name)) ?? "";
      if (/nso-plugin\.js|["']nso-opencode["']/.test(text)) return path.join(folder, name);
    }
  }
  return undefined;
}

/** The preset: `--preset`, else asked on a terminal, else `nso`. */
async function choosePreset(opts, out) {
  if (opts.preset !== undefined) return opts.preset;
  const names = presetNames();
  if (!process.stdin.isTTY || !process.stdout.isTTY) return "nso";
  out(`Which preset? ${names.join(", ")} (docs/authority.md describes each).`);
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = (await rl.question("preset [nso]: ")).trim();
    if (answer === "") return "nso";
    if (!names.includes(answer)) throw new InitError(`no preset "${answer}".`, `run again and give one of: ${names.join(", ")}.`);
    return answer;
  } finally {
    rl.close();
  }
}

/** The `$schema` reference of a `.opencode/nso.json` NSO writes, relative to it unless `absolute`. */
function schemaRef(root, absolute) {
  const dir = path.join(root, ".opencode");
  const schema = path.join(reachableRoot(PACKAGE_ROOT, dir), "schema/nso.schema.json");
  return absolute ? schema : relativeEntry(dir, schema);
}

/** A change `nso init` makes: `file` gets `text`; `note` says what it is. */
function apply(changes, opts, out) {
  for (const c of changes) {
    if (opts.dryRun) {
      out(`would write ${c.file} (${c.note}):\n${c.text.replace(/^/gm, "  ")}`);
      continue;
    }
    fs.mkdirSync(path.dirname(c.file), { recursive: true });
    replaceFile(c.file, c.text, SETTINGS_FILE);
    out(`${c.note}: ${c.file}`);
  }
}

const SWITCH_TEXT = `To enforce: \`nso enforce\` (or set "mode": "enforce" under "authority" in ${CONFIG_FILE}).`;

export async function initOpencode(opts, out) {
  const root = projectRoot(opts.dir);
  const jsonc = path.join(root, "opencode.jsonc");
  const file = fs.existsSync(jsonc) ? jsonc : path.join(root, "opencode.json");
  const changes = [];

  const viaFile = pluginFileLoadingNso(root);
  const entry = pluginEntry(reachableRoot(PACKAGE_ROOT, path.dirname(file)), path.dirname(file), { absolute: opts.absolute });
  if (viaFile) {
    out(`OpenCode already loads NSO through the project plugin file ${viaFile}; ${path.basename(file)} was left as it is (two entries would load NSO twice).`);
  } else {
    let merged;
    try {
      merged = mergeOpencodeConfig(readIfExists(file), entry, file);
    } catch (error) {
      if (error instanceof InitError) error.fix = `${error.fix} NSO's entry: "plugin": [${JSON.stringify(entry)}]`;
      throw error;
    }
    if (merged.present !== undefined) out(`${file} already loads NSO (${JSON.stringify(merged.present)}); nothing changed.`);
    else if (merged.replaced !== undefined) {
      changes.push({ file, text: merged.text, note: `replaced ${JSON.stringify(merged.replaced)} in the plugin list with ${JSON.stringify(entry)} (OpenCode installs a plugin named by package from the npm registry, where NSO is not published)` });
    } else changes.push({ file, text: merged.text, note: `added NSO to the plugin list (${JSON.stringify(entry)})` });
  }

  const configFile = path.join(root, CONFIG_FILE);
  let configText = readIfExists(configFile);
  if (configText === undefined) {
    const preset = await choosePreset(opts, out);
    configText = jsonText({ $schema: schemaRef(root, opts.absolute), authority: { preset, mode: opts.enforce ? "enforce" : "audit" } });
    policyOf(configText, configFile);
    changes.push({ file: configFile, text: configText, note: `created NSO's config, preset ${preset}, ${opts.enforce ? "enforcing" : "audit mode"}` });
  } else {
    policyOf(configText, configFile);
    out(`${configFile} exists; it was left as it is${opts.preset ? ` (to change the preset, edit authority.preset there)` : ""}.`);
  }
  apply(changes, opts, out);

  const config = parseObject(configText, configFile, "NSO's config");
  const preset = config.authority?.preset ?? "nso";
  out(`\nUnder preset ${preset}, the project's agents may (a sample of writes and commands):\n${rightsText(agentRights(root, configText))}`);
  out(config.authority?.mode === "audit"
    ? `\nAudit mode: NSO refuses nothing yet; it logs what it would have refused (review with \`nso audit\`). ${SWITCH_TEXT}`
    : "\nNSO enforces this policy: a refused call is not run, and the agent is told why and what it may do instead.");
  out("Check the setup any time with `nso doctor`.");
  return 0;
}

/** `nso enforce` (`--audit`: back to audit mode). */
export function enforce(opts, out) {
  const root = projectRoot(opts.dir);
  const file = path.join(root, CONFIG_FILE);
  const mode = opts.audit ? "audit" : "enforce";
  const text = readIfExists(file);
  const config = parseObject(text, file, "NSO's config");
  if (text === undefined) throw new InitError(`${file} does not exist; NSO enforces its default preset already.`, "run `nso init opencode` to choose a preset and start in audit mode.");
  if (config.authority !== undefined && (typeof config.authority !== "object" || config.authority === null || Array.isArray(config.authority))) {
    throw new InitError(`${file}: "authority" is not an object; nothing was written.`, "correct it (`nso check` names every problem).");
  }
  if ((config.authority?.mode ?? "enforce") === mode) {
    out(`${file}: already ${mode === "audit" ? "in audit mode" : "enforcing"}; nothing changed.`);
    return 0;
  }
  const next = jsonText({ ...config, authority: { ...(config.authority ?? {}), mode } });
  policyOf(next, file);
  apply([{ file, text: next, note: mode === "audit" ? "switched to audit mode" : "switched to enforcing" }], opts, out);
  if (!opts.dryRun) out(mode === "audit" ? "NSO now logs what it would refuse (`nso audit`) and refuses nothing." : "NSO now refuses what the policy forbids, in OpenCode sessions started from now on.");
  return 0;
}
