// Claude Code's tools as NSO's engine knows them: a Claude Code tool call (`tool_name` and
// `tool_input` of a PreToolUse hook, or `name` and `input` of a transcript's `tool_use` block)
// becomes the OpenCode-shaped call the engine already classifies (write, edit, bash, read, ...).
// Pure: no I/O. Used by `nso replay` on Claude Code transcripts; meant for the Claude Code hook
// adapter too, so both give one verdict for one call.

/** Claude Code's read-class tools and the engine's name for each (path arguments renamed). */
const READ_LIKE = {
  Read: "read", Glob: "glob", Grep: "grep", LS: "list", WebFetch: "webfetch", WebSearch: "websearch",
  TodoWrite: "todowrite", TodoRead: "todoread", Skill: "skill", AskUserQuestion: "question", LSP: "lsp",
};

const str = (v) => (typeof v === "string" ? v : undefined);
/** `obj` without its undefined values (so absent arguments stay absent). */
const defined = (obj) => Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));

/** One Claude Code edit (`{old_string, new_string, replace_all}`) as the engine's edit fields. */
function editFields(e) {
  const edit = e && typeof e === "object" ? e : {};
  return defined({ oldString: str(edit.old_string), newString: str(edit.new_string), replaceAll: edit.replace_all === true ? true : undefined });
}

/**
 * The engine's form `{tool, args}` of a Claude Code call `name` with `input`:
 *
 * | Claude Code | NSO |
 * |---|---|
 * | `Bash {command}` | `bash {command}` (its folder is the hook's or record's `cwd`) |
 * | `Edit {file_path, old_string, new_string, replace_all}` | `edit {filePath, oldString, newString, replaceAll}` |
 * | `MultiEdit {file_path, edits}` | `multiedit {filePath, edits: [{oldString, newString, replaceAll}]}`: one call, the engine computes the result of all edits |
 * | `Write {file_path, content}` | `write {filePath, content}` |
 * | `NotebookEdit {notebook_path}` | `write {filePath}`: the new notebook is not computed, so content checks see an empty text (append-only, sacred and status-governed notebooks are refused: fail closed) |
 * | `Read`, `Glob`, `Grep`, `LS` | `read`, `glob`, `grep`, `list` (`file_path` → `filePath`; `path` kept; Grep's `glob` → `include`) |
 * | `Task`, `Agent {subagent_type, prompt}` | `task {subagent_type, prompt, description}` (`general-purpose` when no type is given, as in Claude Code) |
 * | `WebFetch`, `WebSearch`, `TodoWrite`, `Skill`, ... | their read-class counterparts |
 * | anything else (`mcp__server__tool`, ...) | the same name and input: an unknown tool, a write of every path-like argument (fail closed), else allowed as unclassified |
 *
 * Never throws; a missing or malformed input gives empty arguments.
 */
export function claudeToolCall(name, input) {
  const tool = typeof name === "string" ? name : "";
  const a = input && typeof input === "object" && !Array.isArray(input) ? input : {};
  switch (tool) {
    case "Bash":
      return { tool: "bash", args: defined({ command: str(a.command) ?? "", description: str(a.description) }) };
    case "Edit":
      return { tool: "edit", args: defined({ filePath: str(a.file_path), ...editFields(a) }) };
    case "MultiEdit": {
      const filePath = str(a.file_path);
      const edits = (Array.isArray(a.edits) ? a.edits : []).map((e) => defined({ filePath, ...editFields(e) }));
      return { tool: "multiedit", args: defined({ filePath, edits }) };
    }
    case "Write":
      return { tool: "write", args: defined({ filePath: str(a.file_path), content: str(a.content) ?? "" }) };
    case "NotebookEdit":
      return { tool: "write", args: defined({ filePath: str(a.notebook_path) }) };
    case "Task":
    case "Agent":
      return {
        tool: "task",
        args: defined({ subagent_type: str(a.subagent_type) || "general-purpose", prompt: str(a.prompt), description: str(a.description) }),
      };
    default:
      break;
  }
  const readTool = Object.hasOwn(READ_LIKE, tool) ? READ_LIKE[tool] : undefined;
  if (readTool) {
    const { file_path: filePath, glob, ...rest } = a;
    const args = { ...rest };
    if (typeof filePath === "string") args.filePath = filePath;
    if (typeof glob === "string") args.include = glob;
    return { tool: readTool, args };
  }
  return { tool, args: { ...a } };
}

/** The subagent type a Claude Code `Task`/`Agent` call starts, or undefined for other tools. */
export function claudeSubagentType(name, input) {
  if (name !== "Task" && name !== "Agent") return undefined;
  const t = input && typeof input === "object" ? input.subagent_type : undefined;
  return typeof t === "string" && t ? t : "general-purpose";
}
