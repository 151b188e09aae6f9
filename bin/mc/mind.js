// A project's Mind for Mission Control: its artifacts (under `continuity.dir` of its
// .opencode/nso.json, default .opencode/nso, folder mind/), read as Insight reads them and
// summarised by the workflow core: per segment, the latest reflections and the open questions,
// each with the artifact it cites. Read-only; the newest part of each file at most.
import path from "node:path";
import { loadWorkflowCore } from "../../plugin/core-loader.js";
import { FILES } from "../../plugin/mind/store.js";
import { configText, continuityPath } from "./ledger.js";
import { readTail } from "./feeds.js";

const DEFAULT_DIR = ".opencode/nso";
/** Each artifact file is read up to this size (its end: the newest records). */
const MAX_FILE_BYTES = 8 << 20;
/** Reflections and open questions shown per segment. */
export const PER_SEGMENT = 5;

/** Mind's folder of the project at `root`, from its config (`continuity.dir`). */
export function mindFolder(root, text = configText(root)) {
  // As the plugin places it (plugin/mind/index.js).
  return path.join(path.resolve(root, continuityPath(text, "dir", DEFAULT_DIR)), "mind");
}

/**
 * Mind of the project at `root`: `{ root, folder, segments, warnings, truncated }`, `segments`
 * as the core's overview gives them (an empty list before the first ingestion).
 */
export function readMind(root) {
  const folder = mindFolder(root);
  let truncated = false;
  const read = (name) => {
    const tail = readTail(path.join(folder, FILES[name]), MAX_FILE_BYTES);
    if (tail?.partialStart) truncated = true;
    return tail?.text ?? "";
  };
  const corpus = { observations: read("observations"), reflections: read("reflections"), moves: read("moves") };
  const overview = JSON.parse(loadWorkflowCore().mindOverview(JSON.stringify(corpus), PER_SEGMENT));
  return { root, folder, ...overview, truncated };
}
