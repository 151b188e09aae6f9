// Registering a window's instance with the claim store, never silently: a store that cannot be
// reached or answers too late (a loaded database, a connection timeout) is asked again after a
// growing pause, each failure is logged with its cause, and the last one is told to the person
// and recorded for Mission Control. The core's own refusals (a bad request) are not retried:
// asking again would get the same answer.

/** How a registration is named in messages. */
export const registrationLabel = (task) => (task ? `registering this window's conductor instance for "${task.slice(0, 80)}"`
  : "registering this window's conductor instance");

/**
 * The task and agent each main session first named (kept for good: a registration that failed
 * and is made again at a later call, which knows no task, still carries the session's task).
 * `remember(session, {task, agent})` records what is new and returns what is known.
 */
export function sessionTasks() {
  const known = new Map();
  return {
    remember(session, { task, agent }) {
      const entry = known.get(session) ?? { task: undefined, agent: undefined };
      if (!entry.task && task) entry.task = task;
      if (!entry.agent && agent) entry.agent = agent;
      known.set(session, entry);
      return { task: entry.task, agent: entry.agent ?? agent };
    },
  };
}

/** Pauses between attempts (ms): four attempts over about ten seconds. */
export const RETRY_DELAYS_MS = [500, 2_000, 8_000];

const pause = (ms) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  timer.unref?.();
});

/**
 * Runs `attempt()` (a promise of the registration) until it succeeds, retrying thrown store
 * errors (`code` `conductor_store`) after each of `delays`. `what` names the registration in
 * messages; `errorLog(text)` hears of every failure; `surface({message, cause, attempts,
 * final})` is called when a failure is final (the person and Mission Control are told) and,
 * with `final: false`, when a registration that had failed succeeds (`recovered`).
 * Without `retry` (a registration a write waits for): one attempt, nothing logged or surfaced,
 * so the write fails closed at once and reports the failure itself.
 * Resolves to the attempt's value; rejects with the last error.
 */
export async function registerWithRetry(attempt, { what, retry = true, errorLog, surface, delays = RETRY_DELAYS_MS, sleep = pause }) {
  if (!retry) return attempt();
  for (let i = 0; ; i++) {
    try {
      const value = await attempt();
      if (i > 0) {
        errorLog(`conductor: ${what} succeeded at attempt ${i + 1}`);
        surface?.({ message: `${what} succeeded at attempt ${i + 1}`, cause: null, attempts: i + 1, final: false, recovered: true });
      }
      return value;
    } catch (error) {
      const retriable = error?.code === "conductor_store";
      const last = !retriable || i >= delays.length;
      const cause = error?.message ?? String(error);
      if (last) {
        const message = `${what} failed after ${i + 1} attempt(s): ${cause}` +
          (retriable ? "; it is tried again at the next call that needs a claim" : "");
        errorLog(`conductor: ${message}`);
        surface?.({ message, cause, attempts: i + 1, final: true, recovered: false });
        throw error;
      }
      errorLog(`conductor: ${what} failed (attempt ${i + 1} of ${delays.length + 1}, retrying in ${delays[i] / 1000} s): ${cause}`);
      await sleep(delays[i]);
    }
  }
}

/**
 * Tells of a registration event (see `registerWithRetry`'s `surface`): a final failure reaches
 * the person (`notify`, the host's notification) and Mission Control (an activity record of
 * kind `conductor`, shown in the session's row until a registration succeeds); a success after
 * failures clears it there.
 */
export function registrationEvent({ event, notify, activity }) {
  const state = event.final ? "registration_failed" : "registered";
  try {
    activity?.record("conductor", { session: event.session, state, message: event.message, task: event.task ?? null });
  } catch {
    // the feed is best effort; the log line is written anyway
  }
  if (!event.final) return;
  try {
    notify?.(`NSO conductor: ${event.message}. Until it registers, this window's writes that need a new claim are refused (or, in advisory mode, go ahead with a warning).`);
  } catch {
    // a notification that cannot be shown never stops NSO: nso-errors.log has it
  }
}
