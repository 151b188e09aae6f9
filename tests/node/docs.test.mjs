// The documentation a user reads: the README stays short with a table of contents and the two
// commands near the top; every link between README.md and docs/ resolves (file and heading);
// every configuration key of the schema is documented; and nothing a user or a model reads
// (docs, help, preset reasons) speaks of how the project was made.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";

const ROOT = path.resolve(new URL("../..", import.meta.url).pathname);
const read = (rel) => fs.readFileSync(path.join(ROOT, rel), "utf8");
const DOCS = ["README.md", ...fs.readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

/** Words of the project's history, not of the product. */
const PROCESS_WORDS = [
  /\bissues? #?\d+/i,
  /\bseeds? \d{3}\b/i,
  /\bthe seed('s)?\b/i,
  /\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(st|nd|rd|th)|this|that|previous|last|next) pass(es)?\b/i,
  /\bpass(es)? \d+\b/i,
  /\bsession \d+\b/i,
  /\bthese machines\b/i,
];

function processWords(text) {
  return PROCESS_WORDS.flatMap((re) => {
    const m = re.exec(text);
    return m ? [`"${m[0]}" in: ${text.slice(Math.max(0, m.index - 60), m.index + 60).replace(/\n/g, " ")}`] : [];
  });
}

/** GitHub's anchors of a Markdown text's headings (outside code fences). */
function anchors(text) {
  const out = new Set();
  const seen = new Map();
  let fence = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) fence = !fence;
    const m = !fence && /^#{1,6} (.*)$/.exec(line);
    if (!m) continue;
    const base = m[1].trim().toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, "").replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

test("the README is short, has a table of contents, and keeps the two commands near the top", () => {
  const text = read("README.md");
  const lines = text.split("\n");
  assert.ok(lines.length <= 300, `README.md has ${lines.length} lines (at most 300)`);
  assert.match(text, /^## Contents$/m);
  const top = lines.slice(0, 60).join("\n");
  assert.match(top, /npm run demo/);
  assert.match(top, /npm test/);
  // What NSO does to the agents comes early, with what is blocked and what is allowed.
  assert.ok(text.indexOf("| Agent") < text.indexOf("## Install"), "the preset's table comes before Install");
  assert.match(read(".ci/run"), /npm test/);
});

test("every relative link of README.md and docs/ resolves to a file and a heading", () => {
  const broken = [];
  for (const doc of DOCS) {
    const text = read(doc).replace(/```[\s\S]*?```/g, "");
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [file, anchor] = target.split("#");
      const abs = file ? path.resolve(path.dirname(path.join(ROOT, doc)), file) : path.join(ROOT, doc);
      if (!fs.existsSync(abs)) {
        broken.push(`${doc}: ${target} (no file)`);
        continue;
      }
      if (anchor && abs.endsWith(".md") && !anchors(fs.readFileSync(abs, "utf8")).has(anchor)) broken.push(`${doc}: ${target} (no heading)`);
    }
  }
  assert.deepEqual(broken, []);
});

test("every key of the configuration schema is documented in docs/configuration.md", () => {
  const schema = JSON.parse(read("schema/nso.schema.json"));
  const doc = read("docs/configuration.md");
  const missing = [];
  (function walk(node, prefix) {
    for (const [key, value] of Object.entries(node?.properties ?? {})) {
      const name = prefix ? `${prefix}.${key}` : key;
      if (!doc.includes(`\`${name}\``)) missing.push(name);
      walk(value, name);
    }
  })(schema, "");
  assert.deepEqual(missing, []);
});

test("no user-facing text speaks of issues, seeds or passes: docs, help, preset reasons", () => {
  const found = [];
  for (const doc of DOCS) found.push(...processWords(read(doc)).map((f) => `${doc}: ${f}`));
  const cli = path.join(ROOT, "bin/nso.js");
  const help = (args) => spawnSync(process.execPath, [cli, ...args], { encoding: "utf8" }).stdout;
  const overview = help(["--help"]);
  found.push(...processWords(overview).map((f) => `nso --help: ${f}`));
  for (const [, name] of overview.matchAll(/^ {2}([a-z]+) {2,}/gm)) found.push(...processWords(help([name, "--help"])).map((f) => `nso ${name} --help: ${f}`));
  for (const preset of fs.readdirSync(path.join(ROOT, "crate/presets")).filter((f) => f.endsWith(".json"))) {
    found.push(...processWords(read(`crate/presets/${preset}`)).map((f) => `crate/presets/${preset}: ${f}`));
  }
  assert.deepEqual(found, []);
});
