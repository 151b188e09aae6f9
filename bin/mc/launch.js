// `nso mc`: starts Mission Control (server.js) on the Conductor's home, prints its address
// (with the token) and opens it in the person's browser when there is one to open.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { loadCore } from "../../plugin/core-loader.js";
import { resolveHome } from "../../plugin/conductor/home.js";

export const MC_USAGE = "  nso mc [--port N] [--home DIR] [--no-open] [--dir DIR]";

export const MC_HELP = `mc       Mission Control: a local web page of every agent on this machine (the Agents
         table, each agent's inspector, the Conductor's conflicts and history, the decision
         ledger), updated live. Listens on 127.0.0.1 only (a free port unless --port) and
         prints its address, which holds a random token: every request needs it. Opens the
         page in a browser when one is available (not under CI, without a display, or with
         --no-open). The only changes it makes are yours: releasing or forcing a claim, with
         a justification, through the Conductor (logged in its conflicts.log). --home is the
         Conductor's home (default: conductor.home of DIR's .opencode/nso.json, else
         $CONDUCTOR_HOME, else ~/.conductor). Runs until Ctrl-C.`;

class UsageError extends Error {}

function parse(argv) {
  const opts = { open: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--no-open") opts.open = false;
    else if (["--port", "--home", "--dir"].includes(arg)) {
      if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value`);
      opts[arg.slice(2)] = argv[++i];
    } else throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
  }
  if (opts.port !== undefined && (!/^\d+$/.test(opts.port) || Number(opts.port) > 65535)) throw new UsageError(`--port needs a port number, got ${JSON.stringify(opts.port)}`);
  return opts;
}

/** The git root of `dir`, else `dir`. */
function projectRoot(dir) {
  try {
    return execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return dir;
  }
}

/** The Conductor home as the plugin of the project at `dir` resolves it. */
export function homeFor(dir, env = process.env) {
  const root = projectRoot(path.resolve(dir));
  const file = path.join(root, ".opencode/nso.json");
  try {
    if (fs.existsSync(file)) {
      const configured = new (loadCore().Nso)(".opencode/nso.json", fs.readFileSync(file, "utf8")).config().conductor?.home;
      if (configured) return path.resolve(root, configured);
    }
  } catch {
    // a broken config: the plugin would not run there either; the default home
  }
  return resolveHome(env.CONDUCTOR_HOME);
}

/** The command that opens `url` in a browser here, or null (CI, no display, no opener). */
export function browserOpener(env = process.env, platform = process.platform) {
  if (env.CI) return null;
  if (platform === "darwin") return "open";
  if (platform === "win32") return null;
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return null;
  const found = (env.PATH ?? "").split(path.delimiter).some((d) => d && fs.existsSync(path.join(d, "xdg-open")));
  return found ? "xdg-open" : null;
}

/** Runs `nso mc`; resolves when the server stops (Ctrl-C), to the exit status. */
export async function mcMain(argv, { env = process.env, out = console.log, err = console.error } = {}) {
  let opts;
  try {
    opts = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(`nso mc: ${error.message}\n\nusage:\n${MC_USAGE}`);
    return 2;
  }
  const home = opts.home ? path.resolve(opts.home) : homeFor(opts.dir ?? process.cwd(), env);
  let mc;
  try {
    const { startServer } = await import("./server.js"); // loaded only for `nso mc`
    mc = await startServer({ home, port: opts.port === undefined ? 0 : Number(opts.port) });
  } catch (error) {
    err(`nso mc: cannot start: ${error.message}${error.fix ? `\nFix: ${error.fix}` : ""}`);
    return 2;
  }
  out(`NSO Mission Control: ${mc.url}`);
  out(`  Conductor home: ${mc.home}. Only this address (with its token) opens it; Ctrl-C stops it.`);
  const opener = opts.open ? browserOpener(env) : null;
  if (opener) {
    try {
      spawn(opener, [mc.url], { stdio: "ignore", detached: true }).on("error", () => {}).unref();
    } catch {
      // no browser after all: the address is printed
    }
  }
  return new Promise((resolve) => {
    let stopping = false;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      await mc.close();
      resolve(0);
    };
    // `on`, not `once`: proper-lockfile's signal-exit re-raises a signal that has no other
    // listener left, which would kill the process before it closed.
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
