// End-to-end: Mission Control's Mind panel in a real headless Chromium (playwright-core
// driving Debian's /usr/bin/chromium). A project's Mind is made by `nso mind ingest` from
// recorded lanes plus one hostile session (markup and terminal escapes in what the agent asked);
// `nso mc` runs as a command and knows the project from an instance feed. The page must show
// the project's segments with their latest reflections and open questions, each citing its
// artifact; the hostile strings as literal text with nothing executed; no horizontal overflow
// at 400 px.
/* global document, window -- the functions given to page.evaluate run in the page */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "./lib/opencode.mjs";
import { writeLanes } from "../fixtures/mind/make-lanes.mjs";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const CLI = path.join(REPO, "bin/nso.js");
const CHROMIUM = process.env.NSO_CHROMIUM ?? "/usr/bin/chromium";
const ESC = "\u001b";
const HOSTILE_QUESTION = `Should we run <img src=x onerror=window.__pwned=1> ${ESC}[31mred${ESC}[0m on login?`;
const CONFIG = {
  conductor: { mode: "off" },
  continuity: {
    mind: {
      segments: {
        auth: { paths: ["src/auth/**"], tasks: ["todo:12"], keywords: ["login", "session", "cookie"] },
        payments: { paths: ["src/payments/**"], tasks: ["todo:14"], keywords: ["payment", "cents"] },
        checkout: { paths: ["web/**"], tasks: ["todo:20"], keywords: ["checkout", "stripe"] },
      },
    },
  },
};

/** One session in the lane format whose agent asks a hostile question that nobody answers. */
function hostileLane(dir) {
  const t = Date.UTC(2026, 10, 21, 9);
  const lines = [
    { kind: "session", info: { id: "ses_h0stile", title: "<script>window.__pwned=1</script>", time: { created: t, updated: t } } },
    { kind: "message", info: { id: "msg_h1", sessionID: "ses_h0stile", role: "user", time: { created: t }, agent: "build" } },
    { kind: "part", part: { id: "prt_h1", sessionID: "ses_h0stile", messageID: "msg_h1", type: "text", text: "Check the <b>login</b> flow" } },
    { kind: "message", info: { id: "msg_h2", sessionID: "ses_h0stile", role: "assistant", time: { created: t + 1000 }, agent: "build" } },
    { kind: "part", part: { id: "prt_h2", sessionID: "ses_h0stile", messageID: "msg_h2", type: "text", text: HOSTILE_QUESTION } },
  ].map((r, i) => JSON.stringify({ v: 1, seq: i + 1, t: t + i, ...r }));
  fs.writeFileSync(path.join(dir, ".opencode/nso/transcripts/ses_h0stile.raw.jsonl"), lines.join("\n") + "\n");
}

/** Starts `nso mc`; resolves to `{ url, child }` once it printed its address. */
async function startMc(home) {
  const child = spawn(process.execPath, [CLI, "mc", "--home", home, "--no-open"], { env: { ...process.env, CI: "1" }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const url = await new Promise((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (d) => {
      out += d;
      const m = /^NSO Mission Control: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64})$/m.exec(out);
      if (m) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`nso mc exited (${code}): ${out}`)));
    setTimeout(() => reject(new Error(`nso mc printed no address: ${out}`)), 15_000);
  });
  return { url, child };
}

test("Mission Control shows the project's Mind by segment, citations included, hostile text literal", async (t) => {
  if (!fs.existsSync(CHROMIUM)) {
    t.skip(`no Chromium at ${CHROMIUM} (bash scripts/setup.sh installs Debian's chromium)`);
    return;
  }
  const { chromium } = await import("playwright-core");
  const dir = fs.realpathSync(tempDir("mind-mc"));
  fs.mkdirSync(path.join(dir, ".opencode/nso/transcripts"), { recursive: true });
  fs.writeFileSync(path.join(dir, ".opencode/nso.json"), JSON.stringify(CONFIG));
  writeLanes(path.join(dir, ".opencode/nso/transcripts"), dir);
  hostileLane(dir);
  const ingest = spawnSync(process.execPath, [CLI, "mind", "ingest", "--json", "--dir", dir], { encoding: "utf8" });
  assert.equal(ingest.status, 0, ingest.stderr);
  const status = JSON.parse(spawnSync(process.execPath, [CLI, "mind", "status", "--json", "--dir", dir], { encoding: "utf8" }).stdout);
  assert.ok(status.reflections > 0, "the fixture makes reflections");

  // Mission Control knows a project from an instance's feed (this process stands in for it).
  const home = tempDir("conductor");
  const feed = path.join(home, "activity", `${os.hostname()}-${process.pid}-m1nd00.jsonl`);
  fs.mkdirSync(path.dirname(feed), { recursive: true });
  fs.writeFileSync(feed, JSON.stringify({ v: 1, t: Date.now(), kind: "instance", pid: process.pid, host: os.hostname(), started: Date.now(), project: path.basename(dir), root: dir, serverUrl: null, nso: "test" }) + "\n");

  const mc = await startMc(home);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(mc.url);
    await page.waitForFunction((root) => [...document.querySelectorAll("#mind-project option")].some((o) => o.value === root), dir, { timeout: 15_000 });
    await page.selectOption("#mind-project", dir);
    await page.waitForSelector("#mind section.segment", { timeout: 15_000 });

    const view = await page.evaluate(() => [...document.querySelectorAll("#mind section.segment")].map((s) => ({
      segment: s.dataset.segment,
      reflections: [...s.querySelectorAll("li.reflection")].map((r) => ({ id: r.querySelector("code.cite").textContent, lines: [...r.querySelectorAll("ul.lines > li")].map((l) => ({ text: l.querySelector("span").textContent, cites: [...l.querySelectorAll("code.cite")].map((c) => c.textContent) })) })),
      questions: [...s.querySelectorAll("li.question")].map((q) => ({ text: q.querySelector("span").textContent, cites: [...q.querySelectorAll("code.cite")].map((c) => c.textContent) })),
    })));
    const names = view.map((v) => v.segment);
    for (const s of ["auth", "payments", "checkout"]) assert.ok(names.includes(s), `segment ${s} shown: ${names}`);
    const reflections = view.flatMap((v) => v.reflections);
    assert.ok(reflections.length > 0, "reflections shown");
    for (const r of reflections) {
      assert.match(r.id, /^r-/);
      assert.ok(r.lines.length > 0 && r.lines.every((l) => l.cites.length > 0), `every line of ${r.id} shows its citations`);
    }
    const auth = view.find((v) => v.segment === "auth");
    const hostile = auth.questions.find((q) => q.cites.some((c) => c.startsWith("ses_h0stile/")));
    assert.ok(hostile, `the hostile open question is in auth: ${JSON.stringify(auth.questions)}`);
    assert.equal(hostile.text, HOSTILE_QUESTION.replaceAll(ESC, "\\x1b"), "markup shown literally, escapes made visible");
    assert.equal(await page.evaluate(() => window.__pwned), undefined, "nothing executed");
    assert.equal(await page.evaluate(() => document.querySelectorAll("#mind img, #mind script, #mind b").length), 0);

    await page.setViewportSize({ width: 400, height: 900 });
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "the panel fits 400 px");
    const api = await page.evaluate(async (root) => (await fetch(`/api/mind?root=${encodeURIComponent(root)}`)).status, "/etc");
    assert.equal(api, 404, "only projects Mission Control knows");
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    mc.child.kill("SIGTERM");
  }
});
