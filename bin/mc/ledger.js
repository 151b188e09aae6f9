// A project's decision ledger for Mission Control: the file `continuity.ledger` of its
// .opencode/nso.json names (default .opencode/context/decisions.md), read as `nso decisions`
// reads it (the workflow core's ledger parser), watched while the page looks at it.
import fs from "node:fs";
import path from "node:path";
import { loadWorkflowCore } from "../../plugin/core-loader.js";
import { readTail } from "./feeds.js";

const DEFAULT_LEDGER = ".opencode/context/decisions.md";
/** The ledger is read up to this size (its end: the newest decisions). */
const MAX_LEDGER_BYTES = 2 << 20;
/** Projects whose ledger folder is watched at once. */
const MAX_WATCHED = 50;

/** The project's config text (undefined when missing or unreadable). */
export function configText(root) {
  try {
    return fs.readFileSync(path.join(root, ".opencode/nso.json"), "utf8");
  } catch {
    return undefined;
  }
}

/**
 * The path `continuity.<key>` of the config text `text` names, else `fallback` (also when the
 * config is broken: `nso check` names the problem).
 */
export function continuityPath(text, key, fallback) {
  try {
    const configured = JSON.parse(text ?? "{}")?.continuity?.[key];
    return typeof configured === "string" && configured ? configured : fallback;
  } catch {
    return fallback;
  }
}

/** The ledger file of the project at `root`, from its config (`continuity.ledger`). */
export function ledgerFile(root, text = configText(root)) {
  // As the plugin places it (plugin/continuity/index.js).
  return path.join(root, continuityPath(text, "ledger", DEFAULT_LEDGER));
}

/**
 * Reads the ledger of `root`: `{ root, file, entries, warnings }` (the workflow core's
 * parse, oldest first) or, when the core cannot be loaded, `{ root, file, text }`.
 */
export function readLedger(root) {
  const text = configText(root);
  const file = ledgerFile(root, text);
  const tail = readTail(file, MAX_LEDGER_BYTES);
  const ledger = tail?.text ?? "";
  try {
    const Workflow = loadWorkflowCore().Workflow;
    let wf;
    try {
      wf = new Workflow(".opencode/nso.json", text);
    } catch {
      wf = new Workflow(".opencode/nso.json", undefined); // the ledger parser does not depend on the config
    }
    const parsed = JSON.parse(wf.ledgerJson(ledger));
    return { root, file, entries: parsed.entries ?? [], warnings: parsed.warnings ?? [], truncated: Boolean(tail?.partialStart) };
  } catch {
    return { root, file, text: ledger, truncated: Boolean(tail?.partialStart) };
  }
}

/** `dir` when it exists, else its nearest existing parent, not above `root`. */
function nearestFolder(root, dir) {
  let d = dir;
  while (!fs.existsSync(d) && d !== root && path.dirname(d) !== d) d = path.dirname(d);
  return d;
}

/**
 * Reads ledgers and watches the folders of those read; `onChange(root)` on a change. A ledger
 * whose folder does not exist yet is watched through its nearest existing folder inside the
 * project, and its own folder is watched as soon as it appears.
 */
export function createLedgers({ onChange, errorLog = () => {} }) {
  const watchers = new Map(); // root -> FSWatcher

  /** Watches the folder of `file` (else its nearest existing parent inside `root`). */
  function watch(root, file) {
    const target = path.dirname(file);
    const name = path.basename(file);
    const dir = nearestFolder(root, target);
    try {
      const w = fs.watch(dir, { persistent: false }, (_e, changed) => {
        if (dir === target) {
          if (!changed || String(changed) === name) onChange(root);
          return;
        }
        if (nearestFolder(root, target) === dir) return; // nothing new on the way to the ledger
        // A folder on the way came (or this one went): watch again from there; when the
        // ledger's own folder is there, tell the page (the ledger may be written already).
        w.close();
        watchers.delete(root);
        watch(root, file);
        if (fs.existsSync(target)) onChange(root);
      });
      w.on("error", () => watchers.delete(root));
      watchers.set(root, w);
    } catch (error) {
      if (error.code !== "ENOENT") errorLog(`cannot watch ${dir}: ${error.message}`);
    }
  }

  return {
    read(root) {
      const result = readLedger(root);
      if (!watchers.has(root) && watchers.size < MAX_WATCHED) watch(root, result.file);
      return result;
    },
    close() {
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}
