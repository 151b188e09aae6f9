// NSO's one error shape: an Error with a stable `code` (what went wrong, for programs), a
// `fix` (what the person does about it) and, where known, the project-relative `file` it is
// about. The core's answers carry the same fields ({code, message, fix, ...}).

/** An NSO error; `more` adds fields such as `file`, `line` or `name`. */
export function nsoError(code, message, fix, more = {}) {
  return Object.assign(new Error(message), { code, fix, ...more });
}

/** The core's `{code, message, fix, ...}` error answer, thrown as an NSO error. */
export function coreError(error) {
  return Object.assign(new Error(error.message), error);
}
