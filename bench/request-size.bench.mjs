// What NSO adds to every model request: the bytes of its tool definitions and of its system
// prompt text, measured from the request the model receives (real OpenCode, scripted model),
// for a default project and a `kord` project, per agent. Not a test: it reports figures.
//   node bench/request-size.bench.mjs [--plugin path/to/nso-plugin.js]
// Another commit's plugin (e.g. an unpacked `git archive`) gives the figures before a change.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { requestSize } from "../tests/e2e/lib/request-size.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const at = process.argv.indexOf("--plugin");
const plugin = path.resolve(at > 0 ? process.argv[at + 1] : path.join(here, "../plugin/nso-plugin.js"));

const projects = {
  default: {},
  kord: {
    ".opencode/nso.json": JSON.stringify({ authority: { preset: "kord" } }),
    // a read-only agent of the preset, run as a primary agent
    "opencode.json": JSON.stringify({ agent: { librarian: { mode: "primary", description: "Read-only research." } } }),
  },
};
const agents = { default: ["build", "plan"], kord: ["build", "plan", "librarian"] };

console.log(`NSO's additions to a model request (${plugin})`);
console.log("project  agent    tools  tool bytes  system bytes  total");
for (const [name, files] of Object.entries(projects)) {
  for (const agent of agents[name]) {
    const r = await requestSize({ plugin, files, agent });
    console.log(`${name.padEnd(8)} ${agent.padEnd(8)} ${String(r.tools.length).padStart(5)} ${String(r.toolBytes).padStart(11)} ` +
      `${String(r.systemBytes).padStart(13)} ${String(r.total).padStart(6)}`);
  }
}
