// The Mind panel: a project's Mind by segment (its latest reflections and its open
// questions), each line with the artifacts it cites. Text only (dom.js): everything here
// comes from what agents said and did.
import { api, el } from "./dom.js";

const $ = (id) => document.getElementById(id);
let shown = null; // the root whose Mind is shown (or being fetched)

/** The root shown, if any. */
export const mindRoot = () => shown;

/** `line` split into its text and the citations in brackets it ends with. */
function cited(line) {
  const m = /^([\s\S]*?)\s*\[([^[\]]*)\]\s*$/.exec(line);
  return m ? { text: m[1], cites: m[2].split(",").map((c) => c.trim()).filter(Boolean) } : { text: line, cites: [] };
}

const cites = (list) => (list.length ? el("span", { class: "cites" }, ...list.map((c) => el("code", { class: "cite", text: c }))) : null);

function reflectionItem(r) {
  return el("li", { class: "reflection" },
    el("div", {}, el("code", { class: "cite", text: r.id }), el("span", { class: "muted", text: ` ${r.task ?? "no task"} · by ${r.producer || "?"}` })),
    el("ul", { class: "lines" }, ...r.lines.map((line) => {
      const { text, cites: ids } = cited(line);
      return el("li", {}, el("span", { text }), " ", cites(ids));
    })));
}

function questionItem(q) {
  return el("li", { class: "question" }, el("span", { text: q.text }), " ",
    cites([q.id]), el("span", { class: "muted", text: ` ${q.session}${q.at ? ` · ${new Date(q.at).toISOString().slice(0, 16).replace("T", " ")}` : ""}` }));
}

function segmentView(s) {
  return el("section", { class: "segment", dataset: { segment: s.name } },
    el("h3", { text: `${s.name} ` }, el("span", { class: "muted", text: `${s.observations} observation(s)` })),
    el("h4", { text: "Latest reflections" }),
    s.reflections.length ? el("ol", { class: "reflections" }, ...s.reflections.map(reflectionItem)) : el("p", { class: "empty", text: "No reflection yet." }),
    el("h4", { text: "Open questions" }),
    s.questions.length ? el("ol", { class: "questions" }, ...s.questions.map(questionItem)) : el("p", { class: "empty", text: "No open question." }));
}

/** Shows the Mind of the project chosen in #mind-project in #mind. */
export async function renderMind() {
  const root = $("mind-project").value;
  const box = $("mind");
  if (!root) {
    shown = null;
    box.replaceChildren(el("p", { class: "empty", text: "No project yet." }));
    return;
  }
  shown = root;
  let data;
  try {
    data = await api(`/api/mind?root=${encodeURIComponent(root)}`);
  } catch (error) {
    box.replaceChildren(el("p", { class: "error", text: `Mind could not be read: ${error.message}` }));
    return;
  }
  if (shown !== root) return; // another project was chosen meanwhile
  const children = [el("p", { class: "muted", text: data.folder })];
  if (!data.segments.length) children.push(el("p", { class: "empty", text: "Mind holds nothing yet (nso mind ingest)." }));
  children.push(...data.segments.map(segmentView));
  box.replaceChildren(...children);
}
