// JSON settings files as `nso init` edits them: parsed strictly (a file that is not JSON is never
// rewritten), comments noticed (they cannot be kept through a rewrite), written back with
// 2-space indentation (cli.js replaces them whole: plugin/atomic-file.js).
import fs from "node:fs";

/** A mistake in a file `nso init` will not rewrite: what is wrong, and the fix. */
export class InitError extends Error {
  constructor(message, fix) {
    super(message);
    this.fix = fix;
  }
}

/**
 * Whether `text` holds a `//` or `/* *\/` comment outside strings (JSONC). A quick scanner:
 * strings with escapes are skipped whole.
 */
export function hasComments(text) {
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
    } else if (ch === "/" && (text[i + 1] === "/" || text[i + 1] === "*")) return true;
  }
  return false;
}

/**
 * The object in the JSON `text` of `file` (undefined or blank text: an empty object). Throws
 * {@link InitError} naming the file and the fix when it is not a JSON object; `what` says
 * what the file is, for the fix.
 */
export function parseObject(text, file, what) {
  if (text === undefined || text.trim() === "") return {};
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (hasComments(text)) {
      throw new InitError(`${file} has comments, which this command cannot keep when it rewrites the file; nothing was written.`,
        `add NSO's entry by hand (shown below), or remove the comments and run the command again.`);
    }
    throw new InitError(`${file} is not valid JSON (${error.message}); nothing was written.`, `correct ${what} and run the command again.`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InitError(`${file} does not hold a JSON object; nothing was written.`, `make ${what} a JSON object ({...}) and run the command again.`);
  }
  return value;
}

/** `value` as NSO writes settings: 2-space indentation and a final newline. */
export const jsonText = (value) => `${JSON.stringify(value, null, 2)}\n`;

/** A file's text, or undefined when it does not exist. */
export function readIfExists(file) {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    if (error.code === "ENOENT") return undefined;
    throw error;
  }
}
