// Runs the real OpenCode binary headless against the mock model, fully offline and isolated.
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

const KEEP = process.env.NSO_E2E_KEEP === "1";
const TMP_ROOT = fs.mkdtempSync(path.join(os.tmpdir(), "nso-e2e-"));
process.on("exit", () => {
  if (!KEEP) fs.rmSync(TMP_ROOT, { recursive: true, force: true });
});

/// Path of the OpenCode executable: `$NSO_OPENCODE_BIN`, else the bin of `opencode-ai` in the
/// test host folder (tests/host, installed by scripts/setup.sh apart from the root).
export function opencodeBin() {
  if (process.env.NSO_OPENCODE_BIN) return process.env.NSO_OPENCODE_BIN;
  let pkgJson;
  try {
    pkgJson = createRequire(new URL("../../host/package.json", import.meta.url)).resolve("opencode-ai/package.json");
  } catch {
    throw new Error("opencode-ai is not installed: run `bash scripts/setup.sh` (it installs tests/host) or set NSO_OPENCODE_BIN");
  }
  const { bin } = JSON.parse(fs.readFileSync(pkgJson, "utf8"));
  return path.resolve(path.dirname(pkgJson), typeof bin === "string" ? bin : bin.opencode);
}

/// New temporary directory under this process's e2e root (removed at exit unless NSO_E2E_KEEP=1).
export function tempDir(prefix = "tmp") {
  return fs.mkdtempSync(path.join(TMP_ROOT, `${prefix}-`));
}

/// Creates a temp project with `files` ({ relativePath: content }); with `git`, runs `git init`
/// and commits them. Returns the project's absolute path.
export function makeProject({ files = {}, git = false } = {}) {
  const dir = tempDir("project");
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
  if (git) {
    const run = (...args) => execFileSync("git", args, { cwd: dir, stdio: "ignore" });
    run("init", "-q", "-b", "main");
    run("add", "-A");
    run("-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "commit", "-q", "--allow-empty", "-m", "init");
  }
  return dir;
}

// OpenCode installs @opencode-ai/plugin with npm into each config folder (every existing
// .opencode/ from cwd up to the project root, and ~/.config/opencode/) unless node_modules exists
// and package-lock.json lists every dependency it would add; offline that install can stall
// startup for a minute. Pre-satisfy that check.
function stubPluginInstall(dir) {
  fs.mkdirSync(path.join(dir, "node_modules"), { recursive: true });
  const lockFile = path.join(dir, "package-lock.json");
  if (fs.existsSync(lockFile)) return;
  const pkgFile = path.join(dir, "package.json");
  const pkg = fs.existsSync(pkgFile) ? JSON.parse(fs.readFileSync(pkgFile, "utf8")) : {};
  const dependencies = { ...pkg.dependencies, "@opencode-ai/plugin": "*" };
  fs.writeFileSync(lockFile, JSON.stringify({ lockfileVersion: 3, packages: { "": { dependencies } } }, null, 2));
}

function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function deepMerge(base, extra) {
  const out = { ...base };
  for (const [k, v] of Object.entries(extra ?? {})) out[k] = isObject(v) && isObject(out[k]) ? deepMerge(out[k], v) : v;
  return out;
}

/// Writes (merging with any existing file) `<projectDir>/opencode.json`: provider `mock` at
/// `mockUrl` with models `mock-model` and `gpt-5-mock`, the given `plugins` entries, then `config`
/// deep-merged on top. Returns the written config.
export function writeConfig(projectDir, { mockUrl, plugins, config } = {}) {
  const file = path.join(projectDir, "opencode.json");
  const existing = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
  let merged = deepMerge(existing, {
    $schema: "https://opencode.ai/config.json",
    autoupdate: false,
    share: "disabled",
    provider: {
      mock: {
        npm: "@ai-sdk/openai-compatible",
        name: "Mock",
        options: { baseURL: mockUrl, apiKey: "mock" },
        models: { "mock-model": { name: "Mock" }, "gpt-5-mock": { name: "Mock GPT-5" } },
      },
    },
  });
  if (plugins) merged.plugin = plugins;
  merged = deepMerge(merged, config);
  fs.writeFileSync(file, JSON.stringify(merged, null, 2));
  return merged;
}

function parseEvents(stdout) {
  return stdout
    .split("\n")
    .filter((l) => l.trim().startsWith("{"))
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
}

function readLogs(dataHome) {
  const dir = path.join(dataHome, "opencode", "log");
  if (!fs.existsSync(dir)) return "";
  return fs.readdirSync(dir).sort().map((f) => fs.readFileSync(path.join(dir, f), "utf8")).join("");
}

/// Runs `opencode run --format json --model mock/<model> [--agent <agent>] <prompt>` in `cwd`
/// (default `projectDir`, which holds opencode.json) with a fresh isolated HOME/XDG tree.
/// `mock` is startMockModel's result (or its url); `plugins`/`config` go to opencode.json (see
/// writeConfig); `env` adds variables; on `timeoutMs` the process group is killed. `onSpawn(child)`
/// hears of the process once started (it leads its own process group: `process.kill(-child.pid)`).
/// Resolves to `{ code, signal, timedOut, stdout, stderr, events, log, ms }`: `events` are the
/// parsed JSON lines of stdout, `log` is OpenCode's own log file text.
export async function runOpencode({
  projectDir,
  cwd = projectDir,
  prompt,
  mock,
  agent,
  model = "mock-model",
  env = {},
  timeoutMs = 60_000,
  plugins,
  config,
  home = tempDir("home"),
  onSpawn,
}) {
  const mockUrl = typeof mock === "string" ? mock : mock?.url;
  if (!mockUrl) throw new Error("runOpencode: `mock` (startMockModel result or url) is required");
  writeConfig(projectDir, { mockUrl, plugins, config });

  const xdg = {
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_STATE_HOME: path.join(home, ".local", "state"),
  };
  stubPluginInstall(path.join(xdg.XDG_CONFIG_HOME, "opencode"));
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, ".opencode"))) stubPluginInstall(path.join(dir, ".opencode"));
    if (dir === path.resolve(projectDir) || dir === path.dirname(dir)) break;
  }

  const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("OPENCODE_")));
  const childEnv = {
    ...baseEnv,
    HOME: home,
    ...xdg,
    PWD: path.resolve(cwd), // OpenCode takes its directory from $PWD, not from its real cwd
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_SHARE: "1",
    npm_config_fetch_retries: "0",
    ...env,
  };
  const args = ["run", "--format", "json", "--model", `mock/${model}`];
  if (agent) args.push("--agent", agent);
  // yargs joins the words with spaces but wraps any word containing a space in quotes, so pass
  // the prompt as words; "--" keeps a prompt starting with "-" from being read as an option.
  args.push("--", ...prompt.split(" "));

  const started = Date.now();
  const child = spawn(opencodeBin(), args, { cwd, env: childEnv, stdio: ["ignore", "pipe", "pipe"], detached: true });
  onSpawn?.(child);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    process.kill(-child.pid, "SIGKILL");
  }, timeoutMs);
  const [code, signal] = await new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (c, s) => resolve([c, s]));
  }).finally(() => clearTimeout(timer));

  return {
    code,
    signal,
    timedOut,
    stdout,
    stderr,
    events: parseEvents(stdout),
    log: readLogs(xdg.XDG_DATA_HOME),
    ms: Date.now() - started,
    home,
    env: childEnv,
  };
}

/// `opencode export <sessionID>` with the env of a run (`run.env`: its HOME and XDG dirs, where
/// OpenCode keeps its sessions). Resolves to `{ code, json, stdout, stderr }`.
export async function opencodeExport(sessionID, env, cwd) {
  const child = spawn(opencodeBin(), ["export", sessionID], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  const code = await new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  let json = null;
  try {
    json = JSON.parse(stdout.slice(stdout.indexOf("{")));
  } catch {
    // left null: the caller asserts on code and stderr
  }
  return { code, json, stdout, stderr };
}
