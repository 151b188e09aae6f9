// What a plugin adds to a model request, measured from what the model receives: real OpenCode
// against the scripted model, one run with the plugin and one without; the bytes of the tool
// definitions the plugin added and of the system prompt text it added.
import { startMockModel, systemText } from "./mock-model.mjs";
import { makeProject, runOpencode } from "./opencode.mjs";

/** The first non-title request of one `opencode run` in a new project of `files`. */
export async function firstRequest({ files, plugins, agent }) {
  const mock = await startMockModel(async (_req, ctx) => (ctx.isTitle ? undefined : { text: "done" }));
  try {
    const projectDir = makeProject({ files, git: true });
    const run = await runOpencode({ projectDir, prompt: "Hello, what is in this project?", mock, agent, plugins, timeoutMs: 90_000 });
    const request = mock.requests.find((r) => !r.isTitle);
    if (!request) throw new Error(`no model request (exit ${run.code}): ${run.stderr.slice(-2000)}`);
    return request.body;
  } finally {
    await mock.close();
  }
}

const bytes = (value) => Buffer.byteLength(typeof value === "string" ? value : JSON.stringify(value));

/**
 * What `plugin` (a path) adds to `agent`'s request in a project of `files`:
 * `{tools: [names], toolBytes, systemBytes, total}` (tool bytes: the JSON of each added tool
 * definition as sent; system bytes: system prompt text beyond the run without the plugin).
 */
export async function requestSize({ plugin, files = {}, agent }) {
  const bare = await firstRequest({ files, agent });
  const withPlugin = await firstRequest({ files, agent, plugins: [plugin] });
  const before = new Set((bare.tools ?? []).map((t) => t.function?.name));
  const added = (withPlugin.tools ?? []).filter((t) => !before.has(t.function?.name));
  const toolBytes = added.reduce((sum, t) => sum + bytes(t), 0);
  const systemBytes = Math.max(0, bytes(systemText(withPlugin)) - bytes(systemText(bare)));
  return { tools: added.map((t) => t.function?.name).sort(), toolBytes, systemBytes, total: toolBytes + systemBytes };
}
