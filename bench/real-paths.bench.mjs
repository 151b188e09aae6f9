// What finding a path's real location costs (files.js `realPathInfo`, asked afresh for every
// call), by how deep the project lies: an existing file and a file in a folder not yet there,
// beside what walking its folders costs (an lstat per folder from `/`). p50 / p99 µs.
// Not a test: it reports figures; it asserts only that each path resolves where it lies.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const { realPathInfo } = await import(pathToFileURL(path.join(here, "../plugin/decision/files.js")).href);
const runtime = typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.versions.node}`;
const ROUNDS = Number(process.env.NSO_BENCH_ROUNDS ?? 50000);

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** p50 and p99 (µs) of `fn`, each call timed alone after a warm-up. */
function measure(fn) {
  for (let i = 0; i < ROUNDS / 4; i++) fn();
  const times = new Float64Array(ROUNDS);
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    fn();
    times[i] = (performance.now() - t0) * 1000;
  }
  times.sort();
  return `${percentile(times, 50).toFixed(2)} / ${percentile(times, 99).toFixed(2)}`;
}

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "nso-real-paths-")));
console.log(`real location of a file (${runtime}, ${os.cpus().length} cores), ${ROUNDS} rounds, µs p50 / p99`);
console.log(`${"file".padEnd(70)}${"folders".padEnd(9)}${"existing".padEnd(17)}${"in a new folder".padEnd(17)}lstat per folder`);
for (const rel of ["src/app.ts", "home/alice/work/acme/webapp/src/components/Button.tsx"]) {
  const file = path.join(base, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, "x");
  const info = realPathInfo(file);
  if (info[0] !== file || info[1] !== true) throw new Error(`${file} resolved to ${info}`);
  const fresh = path.join(path.dirname(file), "new/x.ts");
  const folders = path.dirname(file).split("/").slice(1).map((_, i, parts) => `/${parts.slice(0, i + 1).join("/")}`);
  const resolved = measure(() => realPathInfo(file));
  const missing = measure(() => realPathInfo(fresh));
  const walked = measure(() => {
    for (const folder of folders) fs.lstatSync(folder);
    fs.lstatSync(file);
  });
  console.log(`${file.replace(base, "<tmp>").padEnd(70)}${String(folders.length).padEnd(9)}${resolved.padEnd(17)}${missing.padEnd(17)}${walked}`);
}
fs.rmSync(base, { recursive: true, force: true });
