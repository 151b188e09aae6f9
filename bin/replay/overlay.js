// The replay's virtual files: the project's files on disk, with the changes of every call the
// replay allowed and the recording shows completed laid over them, so that each call is decided
// on the files a real run would have had at that moment (an append-only notepad holds the
// earlier appends; an edit finds the file an earlier write created).
//
// A recording names paths where it ran (its root, e.g. /tmp/run/project); the replay reads the
// project at `diskRoot`. Requests keep the recording's paths (the engine's messages are the
// ones the agent read), and every lookup maps them onto the disk and back: the recording's root
// is mounted at `diskRoot`. The overlay answers the core's facts in place of plugin/decision/files.js
// (`DISK_FACTS`: `realPath` and `read`).
import { readForDecision, realPathInfo } from "../../plugin/decision/files.js";

const under = (p, root) => p === root || p.startsWith(root.endsWith("/") ? root : `${root}/`);
const move = (p, from, to) => (from === to || !under(p, from) ? p : to === "/" ? p.slice(from.length) || "/" : from === "/" ? `${to}${p}` : `${to}${p.slice(from.length)}`);

/** Creates the overlay of the project at `diskRoot` (absolute, real). */
export function createOverlay(diskRoot) {
  /** Disk path (real) → text, or null for a file the replay deleted. */
  const files = new Map();
  let changes = 0;

  /**
   * The facts of a session recorded at `recordedRoot` (undefined: at `diskRoot`): `realPath`
   * and `read`, as the core asks them (plugin/decision/files.js `DISK_FACTS`), plus `write` for the
   * replay.
   */
  function lookupsFor(recordedRoot) {
    const root = recordedRoot || diskRoot;
    const toDisk = (p) => move(p, root, diskRoot);
    const fromDisk = (p) => move(p, diskRoot, root);
    /** `[real disk path, exists]` of a recorded absolute path. */
    const diskInfo = (abs) => {
      const [real, exists] = realPathInfo(toDisk(abs));
      return [real, files.has(real) ? files.get(real) !== null : exists];
    };
    return {
      realPath(abs) {
        const [real, exists] = diskInfo(abs);
        return [fromDisk(real), exists];
      },
      /**
       * The current text of a recorded absolute path (undefined when missing), or its size
       * when it is larger than `maxBytes`.
       */
      read(abs, maxBytes = Infinity) {
        const real = diskInfo(abs)[0];
        if (!files.has(real)) return readForDecision(real, maxBytes);
        const text = files.get(real) ?? undefined;
        const size = text === undefined ? 0 : Buffer.byteLength(text, "utf8");
        return size > maxBytes ? size : text;
      },
      /** Sets the text of a recorded absolute path (null: deleted). */
      write(abs, text) {
        files.set(diskInfo(abs)[0], text);
        changes++;
      },
      /** The project-relative form of a recorded path, for reports. */
      relative: (abs) => (under(abs, root) ? abs.slice(root.length).replace(/^\//, "") || "." : abs),
    };
  }

  return { lookupsFor, changeCount: () => changes, fileCount: () => files.size };
}
