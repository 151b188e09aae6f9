// A scripted OpenAI-compatible chat model on 127.0.0.1 for driving real OpenCode in tests.
import http from "node:http";

/**
 * @typedef {({ text: string } | { text?: string, toolCalls: { name: string, args: object }[] }) & { usage?: object }} Reply
 *   `usage` (optional) replaces the default token usage ({ prompt_tokens: 10, completion_tokens: 5,
 *   total_tokens: 15 }) reported with this reply, e.g. a large `prompt_tokens` to make OpenCode
 *   see a context overflow and auto-compact (with a `limit` on the model in opencode.json).
 * @typedef {{
 *   index: number,            // 0-based index of this request among all chat requests
 *   turn: number,             // 0-based index among non-title requests (-1 for title requests)
 *   isTitle: boolean,         // OpenCode's session-title request
 *   sessionId: string | undefined, // the x-session-id header
 *   headers: object,
 *   lastToolResult: string | undefined, // content of the last role:"tool" message, if the
 *                             // conversation ends with tool results
 *   lastUserText: string,     // text of the last user message
 * }} Ctx
 * @typedef {(req: object, ctx: Ctx) => Reply | undefined | Promise<Reply | undefined>} Script
 */

const TITLE_MARKER = /You are a title generator|You output ONLY a thread title/;

/// Text of a chat message's `content` (string or array of parts).
export function contentText(message) {
  const c = message?.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p === "string" ? p : p?.text ?? "")).join("");
  return "";
}

/// True when a chat-completions body is OpenCode's session-title request.
export function isTitleRequest(body) {
  return (body.messages ?? []).some((m) => m.role === "system" && TITLE_MARKER.test(contentText(m)));
}

/// All system-prompt text of a chat-completions body, joined by newlines.
export function systemText(body) {
  return (body.messages ?? []).filter((m) => m.role === "system").map(contentText).join("\n");
}

/// Contents of every role:"tool" message of a chat-completions body.
export function toolResults(body) {
  return (body.messages ?? []).filter((m) => m.role === "tool").map(contentText);
}

/// Names of the tools offered to the model in a recorded request (`{ body }`) or a bare body.
export function toolNames(request) {
  const body = request.body ?? request;
  return (body.tools ?? []).map((t) => t.function?.name ?? t.name).sort();
}

function lastToolResult(body) {
  const msgs = body.messages ?? [];
  const last = msgs[msgs.length - 1];
  return last?.role === "tool" ? contentText(last) : undefined;
}

function lastUserText(body) {
  const users = (body.messages ?? []).filter((m) => m.role === "user");
  return users.length ? contentText(users[users.length - 1]) : "";
}

/// Script that replies with `steps` in order, one per non-title request, then `{ text: "done" }`.
/// A step is a Reply or a function `(req, ctx) => Reply`. OpenCode calls the model again after
/// every tool result, so a step of tool calls is naturally followed by the next step.
export function sequence(steps) {
  let next = 0;
  return async (req, ctx) => {
    if (ctx.isTitle) return undefined;
    if (next >= steps.length) return { text: "done" };
    const step = steps[next++];
    return typeof step === "function" ? step(req, ctx) : step;
  };
}

function chunk(id, model, delta, finish = null, extra = {}) {
  return {
    id,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  };
}

const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

function toolCallList(reply, index) {
  return reply.toolCalls.map((c, i) => ({
    id: `call_${index}_${i}`,
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) },
  }));
}

function sendStream(res, reply, model, index) {
  const id = `chatcmpl-mock-${index}`;
  const events = [chunk(id, model, { role: "assistant", content: "" })];
  let finish = "stop";
  if (reply.toolCalls) {
    if (reply.text) events.push(chunk(id, model, { content: String(reply.text) })); // words before the calls
    toolCallList(reply, index).forEach((call, i) => events.push(chunk(id, model, { tool_calls: [{ index: i, ...call }] })));
    finish = "tool_calls";
  } else {
    events.push(chunk(id, model, { content: String(reply.text) }));
  }
  events.push(chunk(id, model, {}, finish, { usage: reply.usage ?? USAGE }));
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`);
  res.end("data: [DONE]\n\n");
}

function sendJson(res, status, value) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

function sendWhole(res, reply, model, index) {
  const message = reply.toolCalls
    ? { role: "assistant", content: reply.text ? String(reply.text) : null, tool_calls: toolCallList(reply, index) }
    : { role: "assistant", content: String(reply.text) };
  sendJson(res, 200, {
    id: `chatcmpl-mock-${index}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: reply.toolCalls ? "tool_calls" : "stop" }],
    usage: reply.usage ?? USAGE,
  });
}

/// Starts the mock model on 127.0.0.1 (random port). `script(req, ctx)` returns the reply for each
/// chat request; title requests it leaves unanswered (returns undefined) get "Mock session".
/// Returns `{ url, port, requests, close }`; `url` ends in `/v1`, `requests` holds every chat
/// request as `{ body, headers, isTitle }` in arrival order.
export async function startMockModel(script = sequence([])) {
  const requests = [];
  let turns = 0;
  const server = http.createServer(async (req, res) => {
    try {
      const path = new URL(req.url, "http://x").pathname;
      if (req.method === "GET" && path === "/v1/models") {
        return sendJson(res, 200, {
          object: "list",
          data: ["mock-model", "gpt-5-mock"].map((id) => ({ id, object: "model", owned_by: "mock" })),
        });
      }
      if (req.method !== "POST" || path !== "/v1/chat/completions") return sendJson(res, 404, { error: { message: `no route ${req.method} ${path}` } });
      let raw = "";
      for await (const part of req) raw += part;
      const body = JSON.parse(raw);
      const isTitle = isTitleRequest(body);
      const ctx = {
        index: requests.length,
        turn: isTitle ? -1 : turns++,
        isTitle,
        sessionId: req.headers["x-session-id"],
        headers: req.headers,
        lastToolResult: lastToolResult(body),
        lastUserText: lastUserText(body),
      };
      requests.push({ body, headers: req.headers, isTitle });
      const reply = (await script(body, ctx)) ?? (isTitle ? { text: "Mock session" } : { text: "done" });
      const model = body.model ?? "mock-model";
      if (body.stream) sendStream(res, reply, model, ctx.index);
      else sendWhole(res, reply, model, ctx.index);
    } catch (err) {
      // 400, not 5xx: OpenCode retries server errors with backoff, which would stall the run.
      sendJson(res, 400, { error: { message: `mock model: ${err?.stack ?? err}` } });
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
