// Files replaced whole and durably: a temp file beside the target (same folder, so the same
// file system and an atomic rename), written and fsynced, renamed over the target, the folder
// fsynced. A crash or a kill at any moment leaves the old bytes or the new ones, never a mix,
// and at worst a temp file (`.<name>.nso-tmp-<pid>-<hex>`) that the next writer ignores.
// Used by the status sync's journal, the Conductor's files store, transcripts, handoffs and
// `nso init`.
import fs from "node:fs";
import path from "node:path";

// Web Crypto instead of node:crypto: importing that costs several milliseconds in Bun, and the
// plugin's start pays for its imports.
export const randomHex = (bytes) =>
  Array.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");

/** A fresh temp name next to `abs` (same folder, so same file system: a rename is atomic). */
export const tempBeside = (abs) => path.join(path.dirname(abs), `.${path.basename(abs)}.nso-tmp-${process.pid}-${randomHex(4)}`);

/**
 * Creates `file` (it must not exist) holding `text`, fsynced before it is closed; `mode` (when
 * given) is set exactly, whatever the umask.
 */
export function writeDurable(file, text, mode) {
  const fd = fs.openSync(file, "wx", mode ?? 0o666);
  try {
    fs.writeFileSync(fd, text);
    if (mode !== undefined) fs.fchmodSync(fd, mode);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Fsyncs the folder `dir`, so that a rename in it survives a crash (best effort). */
export function syncDir(dir) {
  try {
    const fd = fs.openSync(dir, "r");
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // best effort: some file systems refuse to fsync a folder
  }
}

/**
 * Replaces `file` with `text` (see the module's comment), creating missing folders. `mode`:
 * the new file's permissions (default: 0o666 less the umask); `keepMode`: an existing file's
 * permissions win over `mode`. `followLink`: when `file` is a symlink, the file it leads to is
 * replaced and the link kept (`nso init` on a settings file someone linked on purpose);
 * otherwise the link itself is replaced, so that a link planted where NSO writes its own files
 * cannot send the write elsewhere. The temp file is removed when the write fails.
 */
export function replaceFile(file, text, { mode, keepMode = false, followLink = false } = {}) {
  let target = file;
  if (followLink) {
    try {
      target = fs.realpathSync(file);
    } catch {
      // not there yet (or a dangling link): written as named
    }
  }
  const dir = path.dirname(target);
  fs.mkdirSync(dir, { recursive: true });
  const kept = keepMode ? fs.statSync(target, { throwIfNoEntry: false })?.mode : undefined;
  const temp = tempBeside(target);
  try {
    writeDurable(temp, text, kept === undefined ? mode : kept & 0o7777);
    fs.renameSync(temp, target);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  syncDir(dir);
}
