// The two wasm packages in ../pkg: loading, and recovery after a trap. A nodejs-target
// package instantiates synchronously on require, so a cached module means one instance.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const CORE_PATH = fileURLToPath(new URL("../pkg/nso.js", import.meta.url));
const WORKFLOW_PATH = fileURLToPath(new URL("../pkg/nso_workflow.js", import.meta.url));

let core = null;
let workflowCore = null;

/** The main wasm core (authority, session start), loaded once per process. */
export function loadCore() {
  if (!core) core = require(CORE_PATH);
  return core;
}

/**
 * The second wasm package (routing, contracts, delegations, status machines), loaded on
 * first use so the plugin's cold start does not pay for it.
 */
export function loadWorkflowCore() {
  if (!workflowCore) workflowCore = require(WORKFLOW_PATH);
  return workflowCore;
}

/** Drops a trapped (poisoned) instance and instantiates a fresh one. */
export function reloadCore() {
  delete require.cache[require.resolve(CORE_PATH)];
  core = null;
  if (workflowCore) reloadWorkflowCore();
  return loadCore();
}

/** Drops a trapped workflow package (the main core stays); the next use loads a fresh one. */
export function reloadWorkflowCore() {
  if (workflowCore) delete require.cache[require.resolve(WORKFLOW_PATH)];
  workflowCore = null;
}

/** True for a WebAssembly trap: after one, the instance must not be used again. */
export function isTrap(error) {
  return error instanceof WebAssembly.RuntimeError ||
    (error && error.name === "RuntimeError" && /unreachable|out of bounds/.test(error.message));
}
