// End-to-end (issue 12): Mission Control as a person uses it. `nso mc` runs as a command, a
// real headless Chromium (playwright-core driving Debian's /usr/bin/chromium) opens the address
// it prints, and two real `opencode run` processes with the NSO plugin work on one project: A
// claims src/shared.ts by writing it, B's write to it is refused. The page must show both
// agents, B's refusal with NSO's message in its inspector (reached by keyboard), the conflict
// in both rows and in the conflicts panel, A dead within 10 s of a SIGKILL, hostile strings
// (a hand-written feed, B's prompt and command) as literal text with nothing executed, and no
// horizontal overflow at 400 px. Screenshots go to tests/e2e/artifacts/ (and, with
// NSO_MC_DOCS_SHOT=1, the README's docs/mission-control.png).
/* global document, window -- the functions given to page.evaluate run in the page */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockModel, toolResults } from "./lib/mock-model.mjs";
import { makeProject, runOpencode, tempDir } from "./lib/opencode.mjs";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const PLUGIN = path.join(REPO, "plugin/nso-plugin.js");
const ARTIFACTS = path.join(REPO, "tests/e2e/artifacts");
const CHROMIUM = process.env.NSO_CHROMIUM ?? "/usr/bin/chromium";
const FILE = "src/shared.ts";
const ESC = "\u001b";
const HOSTILE_TASK = "<script>window.__pwned=1</script>";
const HOSTILE_AGENT = "<b onmouseover=window.__pwned=1>evil</b>";
const HOSTILE_TITLE = "\"><img src=x onerror=\"window.__pwned=1\">";
const HOSTILE_COMMAND = `echo '${ESC}[31m<img src=x onerror=window.__pwned=1>${ESC}[0m'`;

/** A promise with its resolve function. */
function signal() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

/** Starts `nso mc` as a person would; resolves to `{ url, child, stopped }` once it printed its address. */
async function startMc(home) {
  const child = spawn(process.execPath, [path.join(REPO, "bin/nso.js"), "mc", "--home", home, "--no-open"], {
    env: { ...process.env, CI: "1" }, stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (d) => (err += d));
  const stopped = new Promise((resolve) => child.on("exit", (code, sig) => resolve({ code, sig, err })));
  const url = await new Promise((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (d) => {
      out += d;
      const m = /^NSO Mission Control: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64})$/m.exec(out);
      if (m) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`nso mc exited (${code}): ${out}${err}`)));
    setTimeout(() => reject(new Error(`nso mc printed no address: ${out}${err}`)), 15_000);
  });
  return { url, child, stopped };
}

/**
 * A feed written by hand, as a hostile or broken plugin might: markup, ANSI escapes, a 1 MB
 * line that is not JSON, a 1 MB message (beyond what the model reads of a line), a 200 KB
 * one, a `javascript:` server URL. Its process is this one.
 */
function writeHostileFeed(home) {
  const file = path.join(home, "activity", `${os.hostname()}-${process.pid}-h0st1l.jsonl`);
  const t = Date.now();
  const call = (message) => ({ v: 1, t, kind: "call", session: "ses_hostile", agent: HOSTILE_AGENT, tool: "bash", callID: "h1", phase: "start",
    verdict: "block", rule: "<i>rule</i>", target: `${ESC}[2J${ESC}[31mred`, message });
  const lines = [
    JSON.stringify({ v: 1, t, kind: "instance", pid: process.pid, host: os.hostname(), started: t, project: "hostile<i>project</i>", root: "/tmp/<script>x</script>", serverUrl: "javascript:window.__pwned=1", nso: "x" }),
    `{"not json ${"<script>window.__pwned=1</script>".repeat(32 * 1024)}`,
    JSON.stringify(call(`<svg onload=window.__pwned=1>${"L".repeat(1 << 20)}`)),
    JSON.stringify({ v: 1, t, kind: "session", session: "ses_hostile", parent: null, agent: HOSTILE_AGENT, title: HOSTILE_TITLE }),
    JSON.stringify({ v: 1, t, kind: "task", session: "ses_hostile", task: HOSTILE_TASK }),
    JSON.stringify(call(`<svg onload=window.__pwned=1>${"M".repeat(200 * 1024)}`)),
  ];
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.tmp`, lines.join("\n") + "\n");
  fs.renameSync(`${file}.tmp`, file); // whole at once: the test waits for what it wrote, not a half
}

/** A plain feed of one idle session of this process, for the project at `root`. */
function writeFeed(home, rand, { root, project }) {
  const t = Date.now();
  const file = path.join(home, "activity", `${os.hostname()}-${process.pid}-${rand}.jsonl`);
  fs.writeFileSync(file, [{ kind: "instance", pid: process.pid, host: os.hostname(), started: t, project, root, serverUrl: null, nso: "x" },
    { kind: "session", session: `ses_${rand}`, parent: null, agent: "build", title: "fresh" }].map((r) => JSON.stringify({ v: 1, t, ...r })).join("\n") + "\n");
}

/** The row (tr) of the Agents table whose task starts with `task`. */
const rowOf = (page, task) => page.locator("#agents-body tr", { has: page.locator("td:nth-child(2)", { hasText: task }) });

test("Mission Control in a real browser: two OpenCode windows, a refusal, a conflict, a kill", { timeout: 180_000 }, async (t) => {
  if (!fs.existsSync(CHROMIUM)) {
    t.skip(`no Chromium at ${CHROMIUM} (bash scripts/setup.sh installs Debian's chromium)`);
    return;
  }
  const { chromium } = await import("playwright-core");
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const projectDir = makeProject({ git: true, files: {
    "src/other.ts": "x\n",
    ".opencode/context/decisions.md": "# Decision ledger\n\n## D-0001 · Keep <b>shared.ts</b> small\n- **When**: 2026-01-01T00:00:00Z\n" +
      "- **Agent**: person\n- **Session**: -\n- **Why**: two windows edit it\n",
  } });
  const project = path.basename(projectDir);
  const home = tempDir("conductor");
  const aWrote = signal();
  const bRefused = signal();
  const bRelease = signal();
  const seen = { a: [], b: [] };
  const steps = { a: 0, b: 0 };
  const mock = await startMockModel(async (req, ctx) => {
    if (ctx.isTitle) return undefined;
    const win = /window A/.test(JSON.stringify(req.messages?.find((m) => m.role === "user") ?? "")) ? "a" : "b";
    const step = steps[win]++;
    if (step > 0) seen[win].push(toolResults(req).at(-1) ?? "");
    if (win === "a") {
      if (step === 0) return { toolCalls: [{ name: "write", args: { filePath: FILE, content: "export const owner = 'A';\n" } }] };
      aWrote.resolve();
      await new Promise(() => {}); // A holds its claim until it is killed
    }
    if (step === 0) return { toolCalls: [{ name: "bash", args: { command: HOSTILE_COMMAND, description: "print a hostile string" } }] };
    if (step === 1) return { toolCalls: [{ name: "write", args: { filePath: FILE, content: "export const owner = 'B';\n" } }] };
    if (step === 2) {
      bRefused.resolve();
      await bRelease.promise;
    }
    return { text: "done" };
  });
  const mc = await startMc(home);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--no-proxy-server"] });
  const children = {};
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const dialogs = [];
    const pageErrors = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      d.dismiss().catch(() => {});
    });
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await page.goto(mc.url);
    await page.locator("#conn", { hasText: "live" }).waitFor({ timeout: 10_000 });

    // A hostile feed shows as text.
    writeHostileFeed(home);
    const hostile = page.locator("#agents-body tr[data-key$=\"-h0st1l/ses_hostile\"]");
    await hostile.waitFor({ timeout: 5000 });
    assert.equal(await hostile.locator("td:nth-child(4)").textContent(), `@${HOSTILE_AGENT}`);
    assert.match(await hostile.locator("td:nth-child(7)").textContent(), /^bash: <svg onload=window\.__pwned=1>M+…$/);

    // Two OpenCode windows on one project.
    const opts = { projectDir, mock, plugins: [PLUGIN], env: { CONDUCTOR_HOME: home }, timeoutMs: 120_000 };
    const runA = runOpencode({ ...opts, prompt: "window A: write the shared module", onSpawn: (c) => (children.a = c) });
    await aWrote.promise;
    const runB = runOpencode({ ...opts, prompt: `window B: write the shared module too ${HOSTILE_TASK}`, onSpawn: (c) => (children.b = c) });
    await bRefused.promise;
    assert.match(seen.b[1], /^NSO blocked write for @build: .*src\/shared\.ts is claimed by instance opc-[a-z0-9]{6}/);

    // Both appear; B is blocked with NSO's message as its last refusal.
    const rowA = rowOf(page, "window A: write the shared module");
    const rowB = rowOf(page, "window B: write the shared module too");
    await rowA.waitFor({ timeout: 5000 });
    await rowB.locator("td:nth-child(5)", { hasText: "blocked" }).waitFor({ timeout: 5000 });
    assert.equal(await rowA.locator("td:nth-child(1)").textContent(), project);
    assert.match(await rowB.locator("td:nth-child(7)").textContent(), /^write: NSO blocked write for @build: .*is claimed by instance opc-/);
    assert.match(await rowB.locator("td:nth-child(2)").textContent(), /<script>window\.__pwned=1<\/script>$/, "the prompt's markup, as text");

    // The conflict, in both rows and in the conflicts panel.
    await rowA.locator(".conflict-flag").waitFor({ timeout: 5000 });
    await rowB.locator(".conflict-flag").waitFor({ timeout: 5000 });
    const idA = (await rowB.locator(".conflict-flag").textContent()).replace("conflict with ", "");
    const idB = (await rowA.locator(".conflict-flag").textContent()).replace("conflict with ", "");
    assert.match(idA, /^opc-[a-z0-9]{6}$/);
    assert.match(await rowA.locator("td:nth-child(8)").textContent(), /src\/shared\.ts/, "A's claim");
    const conflict = page.locator("#conflicts li", { hasText: `${idB} tried to claim` });
    await conflict.waitFor({ timeout: 5000 });
    assert.match(await conflict.textContent(), new RegExp(`CONFLICT ${idB} tried to claim .*src/shared\\.ts already held by ${idA}`));

    // The decision ledger of the project, its markup as text.
    await page.locator("#decisions-project").selectOption({ label: project });
    await page.locator("#decisions li", { hasText: "D-0001" }).waitFor({ timeout: 5000 });
    assert.match(await page.locator("#decisions li").first().textContent(), /D-0001 Keep <b>shared\.ts<\/b> small/);

    // A project without .opencode/ yet: its first decision shows without a reload.
    const fresh = makeProject({ git: true, files: { "README.md": "x\n" } });
    writeFeed(home, "fr3sh0", { root: fresh, project: path.basename(fresh) });
    await page.locator("#decisions-project option", { hasText: path.basename(fresh) }).waitFor({ state: "attached", timeout: 5000 });
    await page.locator("#decisions-project").selectOption({ label: path.basename(fresh) });
    await page.locator("#decisions").getByText(/no decision/i).waitFor({ timeout: 5000 });
    fs.mkdirSync(path.join(fresh, ".opencode/context"), { recursive: true });
    fs.writeFileSync(path.join(fresh, ".opencode/context/decisions.md"), "# Decision ledger\n\n## D-0001 · First of a new project\n" +
      "- **When**: 2026-01-01T00:00:00Z\n- **Agent**: person\n- **Session**: -\n- **Why**: it had none\n");
    await page.locator("#decisions li", { hasText: "First of a new project" }).waitFor({ timeout: 5000 });

    // By keyboard: Tab to B's row, Enter opens its inspector with NSO's message, Escape closes.
    await page.locator("#project-filter").selectOption({ label: project });
    await page.locator("#project-filter").focus();
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = await rowB.evaluate((tr) => document.activeElement === tr);
    }
    assert.ok(reached, "Tab reaches B's row");
    await page.keyboard.press("Enter");
    const inspector = page.locator("#inspector");
    await inspector.locator(".nso-message", { hasText: "NSO blocked write for @build" }).first().waitFor({ timeout: 5000 });
    const shown = await inspector.textContent();
    assert.match(shown, /NSO blocked write for @build: .*src\/shared\.ts is claimed by instance opc-[a-z0-9]{6} \(project /);
    assert.ok(shown.includes(`${"\\x1b"}[31m<img src=x onerror=window.__pwned=1>${"\\x1b"}[0m`), "B's command, its ESC written out");
    assert.match(shown, /T0 transcript/);
    assert.ok(shown.includes("No OpenCode server answers for this session"), "`opencode run` listens nowhere: no attach command");
    assert.doesNotMatch(shown, /opencode attach/);
    await page.screenshot({ path: path.join(ARTIFACTS, "mc-inspector.png") });
    await page.setViewportSize({ width: 400, height: 860 });
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "the inspector fits 400 px");
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.keyboard.press("Escape");
    await inspector.waitFor({ state: "hidden", timeout: 2000 });
    assert.ok(await rowB.evaluate((tr) => document.activeElement === tr), "the focus is back on B's row");

    await page.screenshot({ path: path.join(ARTIFACTS, "mc-agents.png"), fullPage: true });
    if (process.env.NSO_MC_DOCS_SHOT === "1") {
      const bottom = await page.evaluate(() => Math.ceil(document.querySelector("main").getBoundingClientRect().bottom));
      await page.screenshot({ path: path.join(REPO, "docs/mission-control.png"), clip: { x: 0, y: 0, width: 1280, height: bottom } });
    }

    // Narrow: no horizontal overflow of the page.
    await page.locator("#project-filter").selectOption({ label: "all projects" });
    await page.setViewportSize({ width: 400, height: 900 });
    assert.deepEqual(await page.evaluate(() => [document.documentElement.scrollWidth <= window.innerWidth, document.body.scrollWidth <= window.innerWidth]), [true, true]);
    await page.screenshot({ path: path.join(ARTIFACTS, "mc-narrow.png"), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 860 });

    // The hostile row's inspector: text shown literally, nothing run, no dialog.
    await hostile.click();
    await inspector.locator(".nso-message").first().waitFor({ timeout: 5000 });
    const hostileShown = await inspector.textContent();
    assert.ok(hostileShown.includes("\\x1b[2J\\x1b[31mred"), "the ANSI escapes, written out");
    assert.ok(hostileShown.includes("<svg onload=window.__pwned=1>MMMM"), "the message's markup, as text");
    assert.ok(hostileShown.includes("No OpenCode server answers for this session"), "a javascript: server URL gives no attach command");
    await page.keyboard.press("Escape");

    // The person's actions, each with a justification: force B's claim over A's (the form is
    // filled with the target B was refused), then release it; both logged in conflicts.log.
    await rowB.click();
    await inspector.locator("summary", { hasText: "Force a claim" }).click();
    const force = inspector.locator("details.force form");
    assert.equal(await force.locator("input").first().inputValue(), FILE);
    await force.locator("button[type=submit]").click();
    assert.equal(await force.locator("input:invalid").count(), 1, "no justification, nothing sent");
    await force.locator("input").nth(1).fill("A is stuck; B takes over");
    await force.locator("button[type=submit]").click();
    await force.locator(".action-result.ok").waitFor({ timeout: 5000 });
    await page.locator("#conflicts li", { hasText: "FORCE" }).waitFor({ timeout: 5000 });
    assert.match(await page.locator("#conflicts li", { hasText: "FORCE" }).textContent(), new RegExp(`\\(${idB}\\) took .*src/shared\\.ts from ${idA} .*: A is stuck; B takes over$`));
    await rowB.locator("td:nth-child(8)", { hasText: "src/shared.ts" }).waitFor({ timeout: 5000 });
    await page.keyboard.press("Escape");
    await rowB.click();
    await inspector.locator("ul.claims button", { hasText: "Release" }).click();
    const release = inspector.locator("ul.claims form");
    await release.locator("input").fill("handing it back");
    await release.locator("button[type=submit]").click();
    await release.locator(".action-result.ok").waitFor({ timeout: 5000 });
    await page.locator("#conflicts li", { hasText: "RESOLVED" }).waitFor({ timeout: 5000 });
    assert.match(await page.locator("#conflicts li", { hasText: "RESOLVED" }).textContent(), new RegExp(`released .*src/shared\\.ts of ${idB}: handing it back$`));
    await page.keyboard.press("Escape");

    // A killed (SIGKILL to its process group) shows as dead within 10 s.
    const killed = Date.now();
    process.kill(-children.a.pid, "SIGKILL");
    await rowA.locator("td:nth-child(5)", { hasText: "dead" }).waitFor({ timeout: 10_000 });
    const deadAfter = Date.now() - killed;
    assert.ok(deadAfter <= 10_000, `dead after ${deadAfter} ms`);
    t.diagnostic(`A shown dead ${deadAfter} ms after SIGKILL`);
    await page.screenshot({ path: path.join(ARTIFACTS, "mc-dead.png"), fullPage: true });

    bRelease.resolve();
    const [a, b] = await Promise.all([runA, runB]);
    assert.equal(a.signal, "SIGKILL");
    assert.equal(b.code, 0, b.stderr);

    assert.deepEqual(dialogs, [], "no dialog opened");
    assert.equal(await page.evaluate(() => window.__pwned), undefined, "nothing executed");
    assert.deepEqual(pageErrors, []);
  } finally {
    bRelease.resolve();
    for (const c of Object.values(children)) {
      try {
        process.kill(-c.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await browser.close();
    mc.child.kill("SIGTERM");
    const { code } = await mc.stopped;
    assert.equal(code, 0, "nso mc stops cleanly on SIGTERM");
    await mock.close();
  }
});
