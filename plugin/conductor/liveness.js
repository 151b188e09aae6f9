// Is the process behind a conductor instance (or a lock) still running? On this host only:
// its pid exists and is the same process that registered, not a later one given the same pid.
// Linux tells the start time of every process (/proc/<pid>/stat field 22, in clock ticks
// since boot); with the boot id that makes a token no other process will ever carry.
import fs from "node:fs";

let bootId;

/** The kernel's boot id (changes at every boot), or "" where there is none. */
function currentBootId() {
  if (bootId === undefined) {
    try {
      bootId = fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    } catch {
      bootId = "";
    }
  }
  return bootId;
}

/**
 * `{state, start}` of a process from `/proc/<pid>/stat`, or null when it does not exist (or
 * there is no /proc). The command name (field 2) may hold spaces and parentheses, so the
 * fields are counted from the last ")".
 */
export function procStat(pid) {
  let text;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  const close = text.lastIndexOf(")");
  const fields = text.slice(close + 2).split(" ");
  // fields[0] is field 3 (state), so field 4 (ppid) is fields[1] and field 22 (starttime) fields[19].
  return { name: text.slice(text.indexOf("(") + 1, close), state: fields[0], parent: Number(fields[1]), start: fields[19] };
}

/**
 * An opaque token naming the process `pid` for as long as it lives: its start time and the
 * boot it started in. Recorded as an instance's `process_started` and compared for equality.
 * Null where the platform does not tell (no /proc: liveness falls back to the pid alone).
 */
export function processStartToken(pid) {
  const stat = procStat(pid);
  return stat?.start ? `${stat.start}@${currentBootId()}` : null;
}

/** Whether a process with `pid` exists (one we may not signal exists too). */
export function pidExists(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

/**
 * Whether the process `pid` that recorded `started` (a {@link processStartToken}) is still
 * running. A zombie (killed, not yet reaped by its parent) is dead; a pid now used by another
 * process is dead. Without a recorded token only the pid is checked.
 */
export function isProcessAlive(pid, started) {
  if (!pidExists(pid)) return false;
  const stat = procStat(pid);
  // No stat: it just exited (Linux), or this platform has no /proc (the pid must do).
  if (!stat) return procStat(process.pid) === null;
  if (stat.state === "Z" || stat.state === "X") return false;
  return started == null || `${stat.start}@${currentBootId()}` === started;
}

/**
 * The `alive` map the core takes: for each instance of `state` (parsed status.json) that runs
 * on `host` and recorded a pid, whether that process still runs. Instances of other hosts,
 * and those without a pid (registered from a shell that has since exited), are left out: the
 * core judges them by heartbeat age.
 */
export function aliveMap(state, host) {
  const alive = {};
  const instances = Array.isArray(state?.instances) ? state.instances : [];
  for (const instance of instances) {
    if (!instance || typeof instance.id !== "string" || instance.host !== host) continue;
    if (!Number.isInteger(instance.pid) || instance.pid <= 0) continue;
    alive[instance.id] = isProcessAlive(instance.pid, instance.process_started ?? null);
  }
  return alive;
}
