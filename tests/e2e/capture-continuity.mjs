// Captures real OpenCode data for the continuity feature (issue 11) into
// tests/fixtures/continuity/opencode/: session exports, the plugin `event` stream and the hook
// inputs of runs against the scripted mock model, including an automatic compaction.
//
//   bash tests/e2e/netns.sh node tests/e2e/capture-continuity.mjs [outDir]
//
// Not a test (no assertions beyond sanity checks); re-run it to refresh the fixtures. See
// tests/fixtures/continuity/opencode/README.md for the recipe and the files it writes.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockModel, contentText, systemText } from "./lib/mock-model.mjs";
import { makeProject, runOpencode, tempDir, opencodeBin } from "./lib/opencode.mjs";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const OUT = path.resolve(process.argv[2] ?? path.join(REPO, "tests/fixtures/continuity/opencode"));
fs.mkdirSync(OUT, { recursive: true });

const COMPACT_MARKER = "NSO-COMPACT-MARKER-7f3a";
const SYSTEM_MARKER = "NSO-SYSTEM-MARKER-91c2";
// Placeholders written into the fixtures instead of the temp paths of the capture run.
const PROJECT_PLACEHOLDER = "/tmp/nso-continuity/project";
const HOME_PLACEHOLDER = "/tmp/nso-continuity/home";

// ---------------------------------------------------------------------------------------------
// The capturing plugin: every `event` as one JSON line {type, properties} in $CAPTURE_EVENTS;
// the other hooks' inputs (and selected outputs) as {hook, input, output} lines in $CAPTURE_HOOKS.
// `experimental.session.compacting` pushes COMPACT_MARKER into output.context and
// `experimental.chat.system.transform` pushes SYSTEM_MARKER into output.system.
const PLUGIN_SRC = String.raw`
import fs from "node:fs";
const EVENTS = process.env.CAPTURE_EVENTS;
const HOOKS = process.env.CAPTURE_HOOKS;
const line = (file, value) => { if (file) fs.appendFileSync(file, JSON.stringify(value) + "\n"); };
const hook = (name, input, output) => line(HOOKS, { hook: name, t: Date.now(), input, output });
// chat.params / chat.headers inputs carry whole model+provider objects: keep the useful bits.
const slim = (input) => ({
  sessionID: input.sessionID, agent: input.agent,
  model: input.model && { id: input.model.id, providerID: input.model.providerID, limit: input.model.limit },
  message: input.message && { id: input.message.id, agent: input.message.agent, role: input.message.role },
});
export default {
  id: "capture",
  server: async (input) => {
    hook("server", { directory: input.directory, worktree: input.worktree, project: input.project }, undefined);
    return {
      event: async ({ event }) => line(EVENTS, { type: event.type, properties: event.properties }),
      "chat.message": async (i, o) => hook("chat.message", i, { message: o.message, parts: o.parts }),
      "chat.params": async (i, o) => hook("chat.params", slim(i), { maxOutputTokens: o.maxOutputTokens }),
      "tool.execute.before": async (i, o) => hook("tool.execute.before", i, { args: o.args }),
      "tool.execute.after": async (i, o) => hook("tool.execute.after", i, {
        title: o.title, outputChars: String(o.output ?? "").length, outputHead: String(o.output ?? "").slice(0, 300), metadata: o.metadata,
      }),
      "experimental.chat.messages.transform": async (i, o) => hook("experimental.chat.messages.transform", i, {
        count: o.messages.length,
        messages: o.messages.map((m) => ({ id: m.info.id, role: m.info.role, agent: m.info.agent, summary: m.info.summary, parts: m.parts.map((p) => p.type) })),
      }),
      "experimental.chat.system.transform": async (i, o) => {
        o.system.push("${SYSTEM_MARKER}");
        hook("experimental.chat.system.transform", { sessionID: i.sessionID, model: i.model?.id }, { count: o.system.length, chars: o.system.map((s) => s.length) });
      },
      "experimental.session.compacting": async (i, o) => {
        const before = { context: [...o.context], prompt: o.prompt };
        o.context.push("${COMPACT_MARKER}: continuity state would go here");
        hook("experimental.session.compacting", i, { before, after: { context: o.context, prompt: o.prompt } });
      },
      "experimental.compaction.autocontinue": async (i, o) => hook("experimental.compaction.autocontinue", slim(i) && { ...slim(i), overflow: i.overflow }, { enabled: o.enabled }),
      "experimental.text.complete": async (i, o) => hook("experimental.text.complete", i, { text: o.text }),
      "command.execute.before": async (i, o) => hook("command.execute.before", i, { parts: o.parts }),
      dispose: async () => hook("dispose", {}, undefined),
    };
  },
};
`;
const pluginDir = tempDir("capture-plugin");
const pluginPath = path.join(pluginDir, "capture.js");
fs.writeFileSync(pluginPath, PLUGIN_SRC);

// ---------------------------------------------------------------------------------------------
// A persistent HOME/XDG tree (runOpencode makes a fresh one per run; env overrides it), so that
// `opencode export` and a second run see the same storage.
function makeHome() {
  const home = tempDir("home");
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_STATE_HOME: path.join(home, ".local", "state"),
  };
  // Same offline stub as lib/opencode.mjs: OpenCode skips its npm install of
  // @opencode-ai/plugin into ~/.config/opencode when node_modules + a matching lock exist.
  const cfg = path.join(env.XDG_CONFIG_HOME, "opencode");
  fs.mkdirSync(path.join(cfg, "node_modules"), { recursive: true });
  fs.writeFileSync(
    path.join(cfg, "package-lock.json"),
    JSON.stringify({ lockfileVersion: 3, packages: { "": { dependencies: { "@opencode-ai/plugin": "*" } } } }, null, 2),
  );
  return { home, env };
}

const OPENCODE_ENV = {
  OPENCODE_DISABLE_MODELS_FETCH: "1",
  OPENCODE_DISABLE_AUTOUPDATE: "1",
  OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
  OPENCODE_DISABLE_SHARE: "1",
  npm_config_fetch_retries: "0",
};

/// Runs an opencode subcommand (e.g. `export <id>`) with the same env as the runs.
function opencodeCli(args, { cwd, env }) {
  const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("OPENCODE_")));
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(opencodeBin(), args, { cwd, env: { ...baseEnv, ...OPENCODE_ENV, PWD: cwd, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

function readJsonl(file) {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

/// Replaces the temp project/home paths with stable placeholders (plain string replacement; the
/// paths contain no characters that JSON escapes).
function scrub(text, { projectDir, home }) {
  return text.split(projectDir).join(PROJECT_PLACEHOLDER).split(home).join(HOME_PLACEHOLDER);
}

function save(name, text, ctx) {
  const out = ctx ? scrub(text, ctx) : text;
  fs.writeFileSync(path.join(OUT, name), out);
  const kb = (Buffer.byteLength(out) / 1024).toFixed(1);
  console.log(`  wrote ${name} (${kb} KiB)`);
  if (Buffer.byteLength(out) > 2 * 1024 * 1024) throw new Error(`${name} is over 2 MB`);
}

/// Splits `opencode export` stdout into any non-JSON preamble and the JSON document.
function parseExport(stdout) {
  const start = stdout.indexOf("{");
  const json = JSON.parse(stdout.slice(start));
  return { preamble: stdout.slice(0, start), json };
}

function countBy(items, key) {
  const counts = {};
  for (const it of items) counts[key(it)] = (counts[key(it)] ?? 0) + 1;
  return counts;
}

function firstSessionId(events) {
  return events.find((e) => e.sessionID)?.sessionID ?? events.find((e) => e.part?.sessionID)?.part?.sessionID;
}

async function run(label, { projectDir, home, prompt, mock, config, eventsFile, hooksFile }) {
  const started = Date.now();
  const res = await runOpencode({
    projectDir,
    prompt,
    mock,
    plugins: [pluginPath],
    config,
    env: { ...home.env, CAPTURE_EVENTS: eventsFile, CAPTURE_HOOKS: hooksFile },
    timeoutMs: 120_000,
  });
  console.log(`[${label}] opencode run: code=${res.code} timedOut=${res.timedOut} ${Date.now() - started} ms`);
  if (res.code !== 0 || res.timedOut) {
    console.log(res.stderr.slice(-4000));
    console.log(res.stdout.slice(-4000));
    throw new Error(`${label}: opencode run failed`);
  }
  const errors = res.events.filter((e) => e.type === "error");
  if (errors.length) console.log(`[${label}] error events:`, JSON.stringify(errors).slice(0, 2000));
  return res;
}

async function exportSession(label, id, { projectDir, home }) {
  const res = await opencodeCli(["export", id], { cwd: projectDir, env: home.env });
  console.log(`[${label}] opencode export ${id}: code=${res.code} ${res.ms} ms, stdout ${res.stdout.length} chars, stderr ${res.stderr.length} chars`);
  if (res.code !== 0) {
    console.log(res.stderr.slice(-3000));
    throw new Error(`${label}: export failed`);
  }
  const { preamble, json } = parseExport(res.stdout);
  if (preamble.trim()) console.log(`[${label}] export stdout preamble: ${JSON.stringify(preamble)}`);
  if (res.stderr.trim()) console.log(`[${label}] export stderr: ${JSON.stringify(res.stderr.slice(0, 500))}`);
  return { ...res, preamble, json };
}

const facts = {};

// ---------------------------------------------------------------------------------------------
// a. Main session: write, failing bash, read, edit, big bash, final text ending in a question.
async function captureMain() {
  const mock = await startMockModel(async (body, ctx) => {
    if (ctx.isTitle) return undefined;
    const steps = [
      { toolCalls: [{ name: "write", args: { filePath: "notes.txt", content: "hello\nsecond line\n" } }] },
      { toolCalls: [{ name: "bash", args: { command: "echo hi; echo oops >&2; exit 3" } }] },
      { toolCalls: [{ name: "read", args: { filePath: "notes.txt" } }] },
      { toolCalls: [{ name: "edit", args: { filePath: "notes.txt", oldString: "hello", newString: "hello world" } }] },
      { toolCalls: [{ name: "bash", args: { command: "seq 1 200000" } }] },
      { text: "I wrote and edited notes.txt; the first command exited with 3. Shall I add a README too?" },
    ];
    return steps[ctx.turn] ?? { text: "done" };
  });
  const projectDir = makeProject({ files: { "README.md": "# demo\n" }, git: true });
  const home = makeHome();
  const eventsFile = path.join(home.home, "events.jsonl");
  const hooksFile = path.join(home.home, "hooks.jsonl");
  const res = await run("main", { projectDir, home, prompt: "please edit notes", mock, eventsFile, hooksFile });
  const sessionID = firstSessionId(res.events);
  const exp = await exportSession("main", sessionID, { projectDir, home });
  const ctx = { projectDir, home: home.home };
  save("export-main.json", JSON.stringify(exp.json, null, 2) + "\n", ctx);
  save("events-main.jsonl", fs.readFileSync(eventsFile, "utf8"), ctx);
  save("hooks-main.jsonl", fs.readFileSync(hooksFile, "utf8"), ctx);
  save("run-main.stdout.jsonl", res.stdout, ctx);
  facts.main = {
    sessionID,
    runMs: res.ms,
    exportPreamble: exp.preamble,
    exportStderr: exp.stderr.slice(0, 500),
    runEventTypes: countBy(res.events, (e) => e.type),
    pluginEventTypes: countBy(readJsonl(eventsFile), (e) => e.type),
    mockRequests: mock.requests.length,
  };
  // Does `opencode export` work without the run's HOME/XDG? (fresh, empty storage)
  const fresh = makeHome();
  const other = await opencodeCli(["export", sessionID], { cwd: projectDir, env: fresh.env });
  facts.exportWithOtherHome = { code: other.code, stdoutHead: other.stdout.slice(0, 300), stderrHead: other.stderr.slice(0, 300) };
  await mock.close();
}

// ---------------------------------------------------------------------------------------------
// b. A session with a subagent (task → general), the child calls write.
async function captureSubagent() {
  let parentId;
  let parentTurn = 0;
  let childTurn = 0;
  const mock = await startMockModel(async (body, ctx) => {
    if (ctx.isTitle) return undefined;
    parentId ??= ctx.sessionId;
    if (ctx.sessionId === parentId) {
      const steps = [
        {
          toolCalls: [
            {
              name: "task",
              args: { description: "Write child file", prompt: "Create child.txt containing 'from child'.", subagent_type: "general" },
            },
          ],
        },
        { text: "The subagent wrote child.txt. Do you want anything else?" },
      ];
      return steps[parentTurn++] ?? { text: "done" };
    }
    const steps = [
      { toolCalls: [{ name: "write", args: { filePath: "child.txt", content: "from child\n" } }] },
      { text: "Wrote child.txt." },
    ];
    return steps[childTurn++] ?? { text: "done" };
  });
  const projectDir = makeProject({ files: { "README.md": "# demo\n" }, git: true });
  const home = makeHome();
  const eventsFile = path.join(home.home, "events.jsonl");
  const hooksFile = path.join(home.home, "hooks.jsonl");
  const res = await run("subagent", { projectDir, home, prompt: "delegate the file", mock, eventsFile, hooksFile });
  const sessionID = firstSessionId(res.events);
  const events = readJsonl(eventsFile);
  const childID = events.find((e) => e.type === "session.created" && e.properties?.info?.parentID)?.properties.info.id;
  const ctx = { projectDir, home: home.home };
  const parent = await exportSession("subagent parent", sessionID, { projectDir, home });
  const child = await exportSession("subagent child", childID, { projectDir, home });
  save("export-parent.json", JSON.stringify(parent.json, null, 2) + "\n", ctx);
  save("export-child.json", JSON.stringify(child.json, null, 2) + "\n", ctx);
  save("events-subagent.jsonl", fs.readFileSync(eventsFile, "utf8"), ctx);
  save("hooks-subagent.jsonl", fs.readFileSync(hooksFile, "utf8"), ctx);
  facts.subagent = {
    sessionID,
    childID,
    runMs: res.ms,
    pluginEventTypes: countBy(events, (e) => e.type),
    mockRequests: mock.requests.map((r) => ({ session: r.headers["x-session-id"], isTitle: r.isTitle, parent: r.headers["x-parent-session-id"] })),
  };
  await mock.close();
}

// ---------------------------------------------------------------------------------------------
// 2. Automatic compaction: the model has `limit: {context, output}` and the mock reports a
// prompt_tokens count above (context - output) with one reply; OpenCode then compacts.
const LIMIT = { context: 20000, output: 2000 };
const OVERFLOW_USAGE = { prompt_tokens: 25000, completion_tokens: 10, total_tokens: 25010 };

function isCompactionRequest(body) {
  return !(body.tools?.length) && /summar/i.test((body.messages ?? []).map(contentText).join("\n"));
}

function slimRequest(r) {
  const { tools, ...body } = r.body;
  return { headers: { "x-session-id": r.headers["x-session-id"] }, isTitle: r.isTitle, toolNames: (tools ?? []).map((t) => t.function?.name), body };
}

async function captureCompaction() {
  let turn = 0;
  const compactionRequests = [];
  const mock = await startMockModel(async (body, ctx) => {
    if (ctx.isTitle) return undefined;
    if (isCompactionRequest(body)) {
      compactionRequests.push(ctx.index);
      return { text: "## Summary\nThe user asked to set up a.txt; a.txt was written and `echo step2` ran. Next: nothing pending." };
    }
    const steps = [
      { toolCalls: [{ name: "write", args: { filePath: "a.txt", content: "alpha\n" } }] },
      // This reply reports a prompt larger than the usable context (20000 - 2000): overflow.
      { toolCalls: [{ name: "bash", args: { command: "echo step2" } }], usage: OVERFLOW_USAGE },
      { text: "Continued after compaction. Should I do anything else?" },
    ];
    return steps[turn++] ?? { text: "done" };
  });
  const projectDir = makeProject({ files: { "README.md": "# demo\n" }, git: true });
  const home = makeHome();
  const config = { provider: { mock: { models: { "mock-model": { limit: LIMIT } } } } };
  const eventsFile = path.join(home.home, "events.jsonl");
  const hooksFile = path.join(home.home, "hooks.jsonl");
  const res = await run("compaction", { projectDir, home, prompt: "set up a.txt", mock, config, eventsFile, hooksFile });
  const sessionID = firstSessionId(res.events);
  const ctx = { projectDir, home: home.home };
  const exp = await exportSession("compaction", sessionID, { projectDir, home });
  save("export-compaction.json", JSON.stringify(exp.json, null, 2) + "\n", ctx);
  save("events-compaction.jsonl", fs.readFileSync(eventsFile, "utf8"), ctx);
  save("hooks-compaction.jsonl", fs.readFileSync(hooksFile, "utf8"), ctx);
  save("requests-compaction.json", JSON.stringify(mock.requests.map(slimRequest), null, 2) + "\n", ctx);
  const compactionBodies = compactionRequests.map((i) => mock.requests[i].body);
  facts.compaction = {
    sessionID,
    runMs: res.ms,
    compactionRequestIndexes: compactionRequests,
    markerInCompactionRequest: compactionBodies.some((b) => JSON.stringify(b).includes(COMPACT_MARKER)),
    systemMarkerInMainRequests: mock.requests.filter((r) => !r.isTitle).map((r) => systemText(r.body).includes(SYSTEM_MARKER)),
    requestsAfterCompaction: mock.requests.length - 1 - (compactionRequests.at(-1) ?? mock.requests.length),
    pluginEventTypes: countBy(readJsonl(eventsFile), (e) => e.type),
    hookOrder: readJsonl(hooksFile).map((h) => h.hook + (h.input?.agent ? `(${h.input.agent})` : "")),
  };

  // Second run: new session, same project and same HOME/XDG.
  const mock2 = await startMockModel(async (body, ctx2) => (ctx2.isTitle ? undefined : { text: "Hello again. Anything to do?" }));
  fs.writeFileSync(eventsFile + ".2", "");
  const res2 = await run("second run", { projectDir, home, prompt: "second run", mock: mock2, config, eventsFile: eventsFile + ".2", hooksFile: hooksFile + ".2" });
  const sessionID2 = firstSessionId(res2.events);
  save("events-second-run.jsonl", fs.readFileSync(eventsFile + ".2", "utf8"), ctx);
  save("hooks-second-run.jsonl", fs.readFileSync(hooksFile + ".2", "utf8"), ctx);
  save("requests-second-run.json", JSON.stringify(mock2.requests.map(slimRequest), null, 2) + "\n", ctx);
  const main2 = mock2.requests.filter((r) => !r.isTitle);
  facts.secondRun = {
    sessionID: sessionID2,
    runMs: res2.ms,
    requests: mock2.requests.length,
    systemMarker: main2.map((r) => systemText(r.body).includes(SYSTEM_MARKER)),
    messagesRoles: main2.map((r) => r.body.messages.map((m) => m.role)),
    mentionsFirstSession: main2.some((r) => JSON.stringify(r.body).includes("a.txt")),
  };
  // `opencode session list` in the same storage, for the record.
  const list = await opencodeCli(["session", "list", "--format", "json"], { cwd: projectDir, env: home.env });
  facts.sessionList = { code: list.code, stdout: scrub(list.stdout, ctx).slice(0, 3000), stderr: list.stderr.slice(0, 300) };
  await mock.close();
  await mock2.close();
}

const only = process.env.CAPTURE_ONLY?.split(",");
for (const [name, fn] of [
  ["main", captureMain],
  ["subagent", captureSubagent],
  ["compaction", captureCompaction],
]) {
  if (only && !only.includes(name)) continue;
  console.log(`== ${name}`);
  await fn();
}
fs.writeFileSync(process.env.CAPTURE_FACTS ?? path.join(tempDir("facts"), "facts.json"), JSON.stringify(facts, null, 2) + "\n");
console.log(JSON.stringify(facts, null, 2));
