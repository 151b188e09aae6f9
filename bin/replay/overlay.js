// The replay's virtual files: the project's files on disk, with the changes of every call the
// replay allowed and the recording shows completed laid over them, so that each call is decided
// on the files a real run would have had at that moment (an append-only notepad holds the
// earlier appends; an edit finds the file an earlier write created).
//
// A recording names paths where it ran (its root, e.g. /tmp/run/project); the replay reads the
// project at `diskRoot`. Requests keep the recording's paths (the engine's messages are the
// ones the agent read), and every lookup maps them onto the disk and back: the recording's root
// is mounted at `diskRoot`. The overlay answers the core's lookups in place of plugin/files.js
// (see decideWithLookups' `lookups` in plugin/decision.js).
import fs from "node:fs";
import { readBounded, utf8Bytes } from "../../plugin/bounds.js";
import { realPathInfo } from "../../plugin/files.js";

const under = (p, root) => p === root || p.startsWith(root.endsWith("/") ? root : `${root}/`);
const move = (p, from, to) => (from === to || !under(p, from) ? p : to === "/" ? p.slice(from.length) || "/" : from === "/" ? `${to}${p}` : `${to}${p.slice(from.length)}`);

/** Creates the overlay of the project at `diskRoot` (absolute, real). */
export function createOverlay(diskRoot) {
  /** Disk path (real) → text, or null for a file the replay deleted. */
  const files = new Map();
  let changes = 0;

  /** The current text of the disk path `real` (the overlay, else the disk), undefined when missing. */
  function textAt(real) {
    if (files.has(real)) return files.get(real) ?? undefined;
    try {
      return fs.readFileSync(real, "utf8");
    } catch {
      return undefined;
    }
  }

  /**
   * The lookups of a session recorded at `recordedRoot` (undefined: at `diskRoot`): the
   * `{pathInfo, gather}` pair plugin/decision.js takes, plus `read` and `write` for the replay.
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
      pathInfo(abs) {
        const [real, exists] = diskInfo(abs);
        return [fromDisk(real), exists];
      },
      gather(request, need, contentBytes = Infinity) {
        request.resolved ??= {};
        request.contents ??= {};
        request.exists ??= {};
        for (const p of need.resolve) request.resolved[p] = fromDisk(realPathInfo(toDisk(p))[0]);
        for (const p of need.content) {
          const real = toDisk(p);
          let text;
          if (files.has(real)) {
            text = files.get(real) ?? undefined;
            if (text !== undefined && utf8Bytes(text, contentBytes) > contentBytes) text = { oversized: Buffer.byteLength(text, "utf8") };
          } else text = readBounded(real, contentBytes);
          if (typeof text === "object") (request.oversized ??= {})[p] = text.oversized;
          else request.contents[p] = text ?? null;
        }
        for (const p of need.exists) {
          const real = toDisk(p);
          request.exists[p] = files.has(real) ? files.get(real) !== null : fs.existsSync(real);
        }
      },
      /** The current text of a recorded absolute path (undefined when missing). */
      read: (abs) => textAt(diskInfo(abs)[0]),
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
