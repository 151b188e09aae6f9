// NSO for OpenCode: the module OpenCode loads. Every decision comes from the Rust core in
// ../pkg (WebAssembly); the shim does I/O and wiring, split by responsibility (ARCHITECTURE.md):
// hosts/opencode.js wires OpenCode's hooks to the host-independent instance in nso.js.
import { NsoPlugin } from "./hosts/opencode.js";

export { NsoPlugin } from "./hosts/opencode.js";
export { createNso } from "./nso.js";
export { loadCore, loadWorkflowCore, reloadCore, reloadWorkflowCore } from "./core-loader.js";
export { DISK_FACTS, projectRoot, realPath, realPathInfo } from "./decision/files.js";

export default { id: "nso", server: NsoPlugin };
