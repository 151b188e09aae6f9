// A scripted Anthropic Messages API on 127.0.0.1 for driving the real Claude Code CLI in tests.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";

/**
 * @typedef {{ name: string, input?: object, id?: string }} ToolCall
 * @typedef {({ text: string } | { toolCalls: ToolCall[], text?: string }) & { usage?: object }} Reply
 * @typedef {{
 *   index: number,        // 0-based index among all POST /v1/messages requests
 *   headers: object,
 *   system: string,       // all system-prompt text
 *   lastUserText: string, // text parts of the last user message
 *   toolResults: { tool_use_id: string, content: string, is_error: boolean }[], // of the last user message
 * }} Ctx
 * @typedef {(body: object, ctx: Ctx) => Reply | undefined | Promise<Reply | undefined>} Script
 */

/// Text of a content value (string or array of blocks), tool_result blocks included.
export function blockText(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b) => {
      if (typeof b === "string") return b;
      if (b?.type === "text") return b.text ?? "";
      if (b?.type === "tool_result") return blockText(b.content);
      return "";
    })
    .join("\n");
}

/// All system-prompt text of a Messages body.
export function systemText(body) {
  return blockText(body.system);
}

/// Every text of the body's messages (system excluded), joined by newlines.
export function messagesText(body) {
  return (body.messages ?? []).map((m) => blockText(m.content)).join("\n");
}

/// tool_result blocks of the last user message (Claude Code may put a role:"system" message
/// after it).
export function lastToolResults(body) {
  const last = (body.messages ?? []).filter((m) => m.role === "user").at(-1);
  if (!Array.isArray(last?.content)) return [];
  return last.content
    .filter((b) => b?.type === "tool_result")
    .map((b) => ({ tool_use_id: b.tool_use_id, content: blockText(b.content), is_error: Boolean(b.is_error) }));
}

/// Text blocks of the last user message.
export function lastUserText(body) {
  const users = (body.messages ?? []).filter((m) => m.role === "user");
  const last = users.at(-1);
  if (!last) return "";
  if (typeof last.content === "string") return last.content;
  return (last.content ?? []).filter((b) => b?.type === "text").map((b) => b.text).join("\n");
}

/// Names of the tools offered in a Messages body.
export function toolNames(body) {
  return (body.tools ?? []).map((t) => t.name).sort();
}

const USAGE = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

function contentBlocks(reply, index) {
  const blocks = [];
  if (reply.text !== undefined && reply.text !== "") blocks.push({ type: "text", text: String(reply.text) });
  for (const [i, c] of (reply.toolCalls ?? []).entries()) {
    blocks.push({ type: "tool_use", id: c.id ?? `toolu_mock_${index}_${i}`, name: c.name, input: c.input ?? {} });
  }
  if (!blocks.length) blocks.push({ type: "text", text: "" });
  return blocks;
}

function sse(res, event, data) {
  res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
}

function sendStream(res, reply, model, index) {
  const blocks = contentBlocks(reply, index);
  const stop = reply.toolCalls?.length ? "tool_use" : "end_turn";
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", "request-id": `req_mock_${index}` });
  sse(res, "message_start", {
    message: {
      id: `msg_mock_${index}`,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...USAGE, output_tokens: 1 },
    },
  });
  blocks.forEach((b, i) => {
    if (b.type === "text") {
      sse(res, "content_block_start", { index: i, content_block: { type: "text", text: "" } });
      sse(res, "content_block_delta", { index: i, delta: { type: "text_delta", text: b.text } });
    } else {
      sse(res, "content_block_start", { index: i, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
      sse(res, "content_block_delta", { index: i, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
    }
    sse(res, "content_block_stop", { index: i });
  });
  sse(res, "message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: (reply.usage ?? USAGE).output_tokens } });
  sse(res, "message_stop", {});
  res.end();
}

function sendJson(res, status, value) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

function sendWhole(res, reply, model, index) {
  sendJson(res, 200, {
    id: `msg_mock_${index}`,
    type: "message",
    role: "assistant",
    model,
    content: contentBlocks(reply, index),
    stop_reason: reply.toolCalls?.length ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: reply.usage ?? USAGE,
  });
}

/// Starts the mock on 127.0.0.1 (random port). `script(body, ctx)` returns the reply for each
/// POST /v1/messages; undefined means `{ text: "done" }`. Other routes: count_tokens answers a
/// token count, anything else 404 (all logged). Returns `{ url, port, requests, messages, close }`:
/// `requests` holds every request as `{ method, path, headers, body }`, `messages` only the
/// /v1/messages ones (`{ body, headers, reply }`).
export async function startAnthropicMock(script = () => undefined) {
  const requests = [];
  const messages = [];
  const server = http.createServer(async (req, res) => {
    let raw = "";
    try {
      for await (const part of req) raw += part;
      const path = new URL(req.url, "http://x").pathname;
      let body;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      requests.push({ method: req.method, path, url: req.url, headers: req.headers, body });
      if (req.method === "POST" && path === "/v1/messages/count_tokens") {
        return sendJson(res, 200, { input_tokens: Math.ceil(raw.length / 4) });
      }
      if (req.method === "HEAD" || (req.method === "GET" && path === "/")) return sendJson(res, 200, {});
      if (req.method !== "POST" || path !== "/v1/messages") {
        return sendJson(res, 404, { type: "error", error: { type: "not_found_error", message: `mock: no route ${req.method} ${path}` } });
      }
      const ctx = {
        index: messages.length,
        headers: req.headers,
        system: systemText(body),
        lastUserText: lastUserText(body),
        toolResults: lastToolResults(body),
      };
      const entry = { body, headers: req.headers, reply: undefined };
      messages.push(entry);
      const reply = (await script(body, ctx)) ?? { text: "done" };
      entry.reply = reply;
      const model = body.model ?? "claude-mock";
      if (body.stream) sendStream(res, reply, model, ctx.index);
      else sendWhole(res, reply, model, ctx.index);
    } catch (err) {
      // 400, not 5xx/429: the CLI retries those with backoff, which would stall the run.
      sendJson(res, 400, { type: "error", error: { type: "invalid_request_error", message: `anthropic mock: ${err?.stack ?? err}` } });
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    messages,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Running the real Claude Code CLI (`claude -p`) against the mock.

/// Path of the Claude Code executable: `$NSO_CLAUDE_BIN`, else the `@anthropic-ai/claude-code`
/// devDependency's native binary (its postinstall puts it at bin/claude.exe).
export function claudeBin() {
  if (process.env.NSO_CLAUDE_BIN) return process.env.NSO_CLAUDE_BIN;
  let pkgJson;
  try {
    pkgJson = createRequire(import.meta.url).resolve("@anthropic-ai/claude-code/package.json");
  } catch {
    throw new Error("@anthropic-ai/claude-code is not installed: run `npm ci` in the repo root or set NSO_CLAUDE_BIN");
  }
  const { bin } = JSON.parse(fs.readFileSync(pkgJson, "utf8"));
  return path.resolve(path.dirname(pkgJson), typeof bin === "string" ? bin : bin.claude);
}

/// Environment that lets `claude -p` run offline against the mock: its own HOME and config dir,
/// an API key (any value: the mock does not check it), and no telemetry, error reporting,
/// auto-update or other non-essential traffic (without these it resolves outside hosts, which
/// fails harmlessly inside the e2e network namespace but is traffic all the same). Inherited
/// ANTHROPIC_* and CLAUDE* variables are dropped.
export function claudeEnv({ home, mockUrl, env = {} }) {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(ANTHROPIC_|CLAUDE|NSO_E2E_)/.test(k)));
  return {
    ...inherited,
    HOME: home,
    CLAUDE_CONFIG_DIR: path.join(home, ".claude"),
    ANTHROPIC_BASE_URL: mockUrl,
    ANTHROPIC_API_KEY: "sk-ant-e2e-dummy",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    ...env,
  };
}

/// Marks `projectDir` trusted in the config dir's `.claude.json`: without it `-p` still runs the
/// project's hooks but ignores its `permissions.allow` rules.
export function trustProject(home, projectDir) {
  const dir = path.join(home, ".claude");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, ".claude.json");
  const config = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
  config.projects = { ...config.projects, [projectDir]: { ...config.projects?.[projectDir], hasTrustDialogAccepted: true } };
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
}

/// Writes `<projectDir>/.claude/settings.json`.
export function writeClaudeSettings(projectDir, settings) {
  fs.mkdirSync(path.join(projectDir, ".claude"), { recursive: true });
  fs.writeFileSync(path.join(projectDir, ".claude", "settings.json"), JSON.stringify(settings, null, 2));
}

/// Runs `claude -p PROMPT --output-format stream-json --verbose` in `projectDir` (or `cwd`) with
/// HOME `home` (trusted project) against `mock`. Returns `{ code, signal, timedOut, stdout,
/// stderr, events, result, ms }`: `events` are the parsed stream-json lines, `result` the final
/// `{"type":"result"}` event.
export async function runClaude({ projectDir, cwd, home, prompt, mock, args = [], env = {}, timeoutMs = 60_000, trust = true }) {
  fs.mkdirSync(home, { recursive: true });
  if (trust) trustProject(home, projectDir);
  const argv = ["-p", prompt, "--output-format", "stream-json", "--verbose", ...args];
  const started = Date.now();
  const child = spawn(claudeBin(), argv, { cwd: cwd ?? projectDir, env: claudeEnv({ home, mockUrl: mock.url, env }), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, timeoutMs);
  const [code, signal] = await new Promise((resolve) => child.on("close", (c, s) => resolve([c, s])));
  clearTimeout(timer);
  const events = stdout
    .split("\n")
    .filter((l) => l.trim().startsWith("{"))
    .map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        return { unparsed: l };
      }
    });
  return { code, signal, timedOut, stdout, stderr, events, result: events.findLast((e) => e.type === "result"), ms: Date.now() - started };
}
