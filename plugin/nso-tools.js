// NSO's custom tools for agents: task contracts and reports, language routing, and atomic
// status moves. Arguments are plain JSON Schema (OpenCode 1.18 accepts it without zod, so
// loading the plugin does not pay for zod); OpenCode does not validate them, so every tool
// checks its own arguments. Each tool's writes go through the same engine as the agents'
// own tool calls (authority and status machines) before anything is written.
import fs from "node:fs";
import path from "node:path";
import { replaceFile } from "./atomic-file.js";

export const TASKS_DIR = ".opencode/context/active_tasks";
export const TEMPLATES_DIR = ".opencode/nso/templates";

/** A refusal the agent reads as the tool's result. */
class ToolRefusal extends Error {}

// Every byte of a tool's definition goes with every model request: an argument gets a
// description only where its name does not say enough.
const str = (description) => (description ? { type: "string", description } : { type: "string" });
const list = (description) => (description ? { type: "array", items: { type: "string" }, description } : { type: "array", items: { type: "string" } });

function text(args, key, { required = false, max = 20_000 } = {}) {
  const v = args?.[key];
  if (v === undefined || v === null) {
    if (required) throw new ToolRefusal(`argument \`${key}\` is required.`);
    return "";
  }
  if (typeof v !== "string") throw new ToolRefusal(`argument \`${key}\` must be a string, not ${typeof v}.`);
  if (required && !v.trim()) throw new ToolRefusal(`argument \`${key}\` must not be empty.`);
  if (v.length > max) throw new ToolRefusal(`argument \`${key}\` is longer than ${max} characters.`);
  return v.trim();
}

function strings(args, key, { max = 200 } = {}) {
  const v = args?.[key];
  if (v === undefined || v === null || v === "") return [];
  const items = typeof v === "string" ? [v] : v;
  if (!Array.isArray(items) || items.some((s) => typeof s !== "string")) {
    throw new ToolRefusal(`argument \`${key}\` must be a list of strings.`);
  }
  if (items.length > max) throw new ToolRefusal(`argument \`${key}\` has more than ${max} items.`);
  return items.map((s) => s.trim()).filter(Boolean);
}

/** ISO 8601 time without milliseconds (`2026-01-03T18:18:35Z`), as the core expects. */
export function isoNow(date = new Date()) {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** `isoNow()` and the same day as `20261122` (task ids). */
function clock() {
  const iso = isoNow();
  return { iso, ymd: iso.slice(0, 10).replaceAll("-", "") };
}

function randomPart() {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  // Web Crypto (a global): importing node:crypto costs several milliseconds in Bun.
  return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(6)), (b) => alphabet[b % 36]).join("");
}

/**
 * The project's template for a task file (`.opencode/nso/templates/<kind>.md`), or undefined
 * for the shipped one.
 */
export function projectTemplate(root, kind) {
  const file = path.join(root, TEMPLATES_DIR, `${kind}.md`);
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    if (error.code === "ENOENT") return undefined;
    throw new ToolRefusal(`cannot read the template ${TEMPLATES_DIR}/${kind}.md: ${error.message}.`);
  }
}

/**
 * Renders a task file and parses it back, so a file NSO writes is always one its checks can
 * read (a broken project template is named, with the fix).
 */
export function renderChecked(wf, root, kind, data) {
  const template = projectTemplate(root, kind);
  const where = template === undefined ? `the shipped ${kind}.md template` : `${TEMPLATES_DIR}/${kind}.md`;
  let rendered;
  try {
    rendered = wf.renderTaskFile(kind, JSON.stringify(data), template);
  } catch (error) {
    throw new ToolRefusal(`${where} cannot be rendered: ${error.message} Fix the template (variables are {{name}}; see docs/routing-and-contracts.md).`);
  }
  try {
    wf.parseTaskFile(kind, rendered);
  } catch (error) {
    throw new ToolRefusal(`${where} renders a ${kind}.md that NSO cannot parse back (${error.message}). Fix the template so it keeps the shipped structure.`);
  }
  return rendered;
}

function taskFolder(wf, root, taskId) {
  try {
    wf.validateTaskId(taskId);
  } catch (error) {
    throw new ToolRefusal(`\`${taskId}\` is not a task id: ${error.message}`);
  }
  const rel = `${TASKS_DIR}/${taskId}`;
  if (!fs.existsSync(path.join(root, rel, "contract.md"))) {
    throw new ToolRefusal(`there is no contract for task ${taskId} (${rel}/contract.md is missing). Use the task id your caller gave you, or ask it to create the contract with nso_contract.`);
  }
  return rel;
}

/** The checked task id and folder of a report, and its status if `allowed` lists them. */
function reportTarget(wf, root, args, allowed = []) {
  const taskId = text(args, "task_id", { required: true, max: 120 });
  const dir = taskFolder(wf, root, taskId);
  if (!allowed.length) return { taskId, dir };
  const status = text(args, "status", { required: true, max: 20 }).toUpperCase();
  if (!allowed.includes(status)) {
    throw new ToolRefusal(`status must be one of ${allowed.join(", ")} (got ${JSON.stringify(status)}).`);
  }
  return { taskId, dir, status };
}

/** Whether each path exists inside the project and is non-empty (phantom deliverables). */
function missingDeliverables(root, paths) {
  const problems = [];
  for (const p of paths) {
    const abs = path.resolve(root, p);
    const rel = path.relative(root, abs);
    if (rel.startsWith("..") || path.isAbsolute(rel)) {
      problems.push(`${p} is outside the project`);
      continue;
    }
    const stat = fs.statSync(abs, { throwIfNoEntry: false });
    if (!stat) problems.push(`${p} does not exist`);
    else if (stat.isFile() && stat.size === 0) problems.push(`${p} is empty`);
  }
  return problems;
}

/**
 * The tool bodies (arguments, execute; descriptions: the core's table, toolbox.js), for an NSO instance `nso` (see createNso): `nso.root`, `nso.workflowCore()`,
 * `nso.authorizeWrite(sessionID, agent, relPath, content)` → refusal text or null,
 * `nso.log(line)`, `nso.configText()`, and `nso.statusSync(options)`.
 */
export function nsoTools(nso) {
  const { root } = nso;

  /**
   * Checks every write with the engine, claims the files for the agent's window (the
   * Conductor), then writes them, each replaced whole (creating folders: atomic-file.js).
   */
  async function writeAll(ctx, files) {
    for (const [rel, content] of files) {
      const refusal = nso.authorizeWrite(ctx.sessionID, ctx.agent, rel, content);
      if (refusal) throw new ToolRefusal(refusal);
    }
    const held = await nso.claimFiles(ctx, files.map(([rel]) => rel));
    if (held) throw new ToolRefusal(held);
    for (const [rel, content] of files) {
      replaceFile(path.join(root, rel), content);
    }
  }

  /** Runs a tool body; a refusal or an unexpected error becomes the text the agent reads. */
  const run = (name, body) => async (args, ctx = {}) => {
    try {
      return await body(args ?? {}, ctx);
    } catch (error) {
      const refused = error instanceof ToolRefusal || error.name === "NSOBlock";
      if (!refused) nso.log(`${new Date().toISOString()} ${name} failed: ${error.stack ?? error.message}`);
      const why = refused || error.code ? error.message : `unexpected error: ${error.message}`;
      return `NSO ${name} refused for @${ctx.agent ?? "?"}: ${why} Nothing was written.`;
    }
  };

  return {
    nso_contract: {
      args: {
        agent: str(),
        workflow: str("e.g. build"),
        title: str(),
        objective: str(),
        success_criteria: list(),
        context_files: list(),
      },
      execute: run("nso_contract", async (args, ctx) => {
        const wf = nso.workflowCore();
        const agent = text(args, "agent", { required: true, max: 100 }).replace(/^@/, "");
        const workflow = text(args, "workflow", { required: true, max: 40 });
        const title = text(args, "title", { required: true, max: 200 });
        const objective = text(args, "objective", { required: true });
        const criteria = strings(args, "success_criteria");
        if (!criteria.length) throw new ToolRefusal("give at least one success criterion, so the result can be checked.");
        const contextFiles = strings(args, "context_files");
        const { iso, ymd } = clock();
        let taskId;
        try {
          for (let i = 0; i < 5 && (!taskId || fs.existsSync(path.join(root, TASKS_DIR, taskId))); i++) {
            taskId = wf.newTaskId(workflow, ymd, title, randomPart());
          }
        } catch (error) {
          throw new ToolRefusal(error.message);
        }
        const dir = `${TASKS_DIR}/${taskId}`;
        const contract = renderChecked(wf, root, "contract", {
          task_id: taskId, agent, workflow, phase: null, created: iso, delegated_by: ctx.agent ?? null,
          objective, requirements_reference: "", success_criteria: criteria.map((c) => ({ text: c, checked: false })),
          context_files: contextFiles, extra_fields: [], extra_sections: [],
        });
        const status = renderChecked(wf, root, "status", {
          task_id: taskId, status: "PENDING", last_update: iso, progress: null, current_step: "Not started",
          completed_steps: [], remaining: criteria.map((c) => ({ text: c, checked: false })), artifacts: [],
          extra_fields: [], extra_sections: [],
        });
        await writeAll(ctx, [[`${dir}/contract.md`, contract], [`${dir}/status.md`, status]]);
        nso.log(`${iso} nso_contract @${ctx.agent ?? "?"} ${taskId} for @${agent}`);
        return [
          `Created task ${taskId} for @${agent}: ${dir}/contract.md and ${dir}/status.md (PENDING).`,
          `Start the task prompt with: "Task ${taskId}. Read ${dir}/contract.md first; report with nso_report_status, nso_report_result or nso_report_questions (task_id ${taskId})."`,
        ].join("\n");
      }),
    },

    nso_report_status: {
      args: {
        task_id: str(),
        status: { type: "string", enum: ["PENDING", "IN_PROGRESS", "BLOCKED", "COMPLETE", "FAILED"] },
        current_step: str(),
        completed: list(),
        remaining: list(),
        artifacts: list(),
      },
      execute: run("nso_report_status", async (args, ctx) => {
        const wf = nso.workflowCore();
        const { taskId, dir, status } = reportTarget(wf, root, args, ["PENDING", "IN_PROGRESS", "BLOCKED", "COMPLETE", "FAILED"]);
        const { iso } = clock();
        const rendered = renderChecked(wf, root, "status", {
          task_id: taskId, status, last_update: iso, progress: null, current_step: text(args, "current_step") || null,
          completed_steps: strings(args, "completed").map((s) => ({ text: s, checked: true })),
          remaining: strings(args, "remaining").map((s) => ({ text: s, checked: false })),
          artifacts: strings(args, "artifacts"), extra_fields: [], extra_sections: [],
        });
        await writeAll(ctx, [[`${dir}/status.md`, rendered]]);
        return `Updated ${dir}/status.md: ${status}.`;
      }),
    },

    nso_report_result: {
      args: {
        task_id: str(),
        status: { type: "string", enum: ["COMPLETE", "FAILED"] },
        deliverables: list("files you produced"),
        notes: str(),
      },
      execute: run("nso_report_result", async (args, ctx) => {
        const wf = nso.workflowCore();
        const { taskId, dir, status } = reportTarget(wf, root, args, ["COMPLETE", "FAILED"]);
        const deliverables = strings(args, "deliverables");
        if (status === "COMPLETE" && !deliverables.length) {
          throw new ToolRefusal("a COMPLETE result lists at least one deliverable (the files you produced).");
        }
        const problems = missingDeliverables(root, deliverables);
        if (problems.length) {
          throw new ToolRefusal(`the deliverables are not all there: ${problems.join("; ")}. Create them first, or report FAILED and say why in the notes.`);
        }
        const { iso } = clock();
        const rendered = renderChecked(wf, root, "result", {
          task_id: taskId, status, completed: iso, duration: null,
          deliverables: deliverables.map((p) => ({ path: p, note: "" })), validation: [],
          notes: text(args, "notes"), extra_fields: [], extra_sections: [],
        });
        await writeAll(ctx, [[`${dir}/result.md`, rendered]]);
        return `Wrote ${dir}/result.md: ${status}, ${deliverables.length} deliverable(s).`;
      }),
    },

    nso_report_questions: {
      args: {
        task_id: str(),
        questions: list(),
        understood: str(),
        unclear: str(),
      },
      execute: run("nso_report_questions", async (args, ctx) => {
        const wf = nso.workflowCore();
        const { taskId, dir } = reportTarget(wf, root, args);
        const questions = strings(args, "questions");
        if (!questions.length) throw new ToolRefusal("give at least one question.");
        const rendered = renderChecked(wf, root, "questions", {
          task_id: taskId, agent: ctx.agent ?? null, questions, understood: text(args, "understood"),
          unclear: text(args, "unclear"), extra_fields: [], extra_sections: [],
        });
        await writeAll(ctx, [[`${dir}/questions.md`, rendered]]);
        return `Wrote ${dir}/questions.md (${questions.length} question(s)). Stop here and return; your caller will answer.`;
      }),
    },

    nso_route: {
      args: {
        command: str("e.g. /research"),
        task: str("task number"),
      },
      execute: run("nso_route", async (args) => {
        const command = text(args, "command", { required: true, max: 100 });
        const task = text(args, "task", { required: true, max: 20 });
        const r = languageRoute(nso.workflowCore(), root, command, task);
        const lang = `language ${r.language.language} (from ${r.language.source})`;
        return r.route.agent
          ? `${command} for task ${task}: @${r.route.agent} — ${lang}; ${r.route.reason}`
          : `${command} for task ${task}: no agent — ${lang}; ${r.route.reason}`;
      }),
    },

    nso_status_set: {
      args: {
        task: { type: "integer" },
        status: str("e.g. RESEARCHED"),
        artifacts: list("paths to link"),
      },
      execute: run("nso_status_set", async (args, ctx) => {
        const task = Number(args.task);
        if (!Number.isInteger(task) || task < 0) throw new ToolRefusal("`task` must be a task number.");
        const result = await nso.statusSync(ctx, { op: "set", taskNumber: task, newStatus: text(args, "status", { required: true, max: 40 }), artifacts: strings(args, "artifacts") });
        return `${result.summary} (${result.files.join(", ")})`;
      }),
    },

    nso_task_new: {
      args: {
        title: str(),
        description: str(),
        priority: { type: "string", enum: ["High", "Medium", "Low"] },
        language: str("lean, markdown, python, general…"),
      },
      execute: run("nso_task_new", async (args, ctx) => {
        const result = await nso.statusSync(ctx, {
          op: "new", title: text(args, "title", { required: true, max: 200 }), description: text(args, "description"),
          priority: text(args, "priority", { max: 20 }) || undefined, language: text(args, "language", { max: 40 }) || undefined,
        });
        return `${result.summary} (${result.files.join(", ")})`;
      }),
    },

    nso_task_archive: {
      args: {},
      execute: run("nso_task_archive", async (args, ctx) => {
        const result = await nso.statusSync(ctx, { op: "archive" });
        return `${result.summary} (${result.files.join(", ") || "no files changed"})`;
      }),
    },
  };
}

/** The project folder of task N (`.opencode/specs/NNN_name/`), if there is one. */
export function projectFolder(specs, task) {
  const n = String(task).match(/\d+/)?.[0];
  if (!n || !fs.existsSync(specs)) return undefined;
  const entry = fs.readdirSync(specs, { withFileTypes: true })
    .find((d) => d.isDirectory() && Number(d.name.match(/^(\d+)_/)?.[1] ?? NaN) === Number(n));
  return entry ? path.join(specs, entry.name) : undefined;
}

function readIf(file) {
  return file && fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
}

/**
 * Language routing for a command and a task: `{language, route}` from the routing tables in
 * the frontmatter of `.opencode/command/*.md` and the task's language. `state`/`todo`
 * override the files read.
 */
export function languageRoute(wf, root, command, task, { state, todo } = {}) {
  const tables = [];
  for (const folder of [".opencode/command", ".opencode/commands"]) {
    const dir = path.join(root, folder);
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir).filter((n) => n.endsWith(".md")).sort()) {
      try {
        const table = wf.commandRouting(name, fs.readFileSync(path.join(dir, name), "utf8"));
        if (table) tables.push(JSON.parse(table));
      } catch (error) {
        throw new ToolRefusal(`${folder}/${name}: ${error.message}`);
      }
    }
  }
  const specs = path.join(root, ".opencode/specs");
  const folder = projectFolder(specs, task);
  const stateFile = state ?? [folder && path.join(folder, "state.json"), path.join(specs, "state.json")]
    .find((f) => f && fs.existsSync(f));
  const todoFile = todo ?? path.join(specs, "TODO.md");
  const language = JSON.parse(wf.detectLanguage(readIf(stateFile), readIf(todoFile), String(task)));
  const route = JSON.parse(wf.routeLanguage(JSON.stringify(tables), command, language.language));
  return { language, route };
}
