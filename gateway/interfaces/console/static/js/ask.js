// The ask page: a conversation with the agent (when a model is configured), and always a
// program editor beside the principal's directory and, on demand, each use case's sheet.

import { answerParts } from "./answer.js";
import { call, enc, get, post } from "./api.js";
import { h, problemText, put, showProblem, table } from "./dom.js";

const CONVERSATION = "sluice.conversation";
const DRAFT = "sluice.draft";

/** The view for #/ask. */
export async function showAsk(root) {
  const $ = (selector) => root.querySelector(selector);
  wireEditor($);
  wireAgent($);
  await Promise.all([loadDirectory($), loadConversation($)]);
}

function wireEditor($) {
  const form = $("#program-form");
  const source = $("#program-source");
  const language = $("#program-language");
  const draft = JSON.parse(sessionStorage.getItem(DRAFT) || "null");
  if (draft) {
    source.value = draft.source;
    language.value = draft.language;
  }
  const keepDraft = () =>
    sessionStorage.setItem(DRAFT, JSON.stringify({ source: source.value, language: language.value }));
  source.addEventListener("input", keepDraft);
  language.addEventListener("change", keepDraft);
  source.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    const request = $("#program-request").value.trim();
    const answer = await post("/v1/programs", {
      language: language.value,
      source: source.value,
      request: request || null,
    });
    button.disabled = false;
    if (answer.ok) {
      location.hash = `#/proposals/${enc(answer.body.id)}`;
      return;
    }
    showProblem($("#program-problem"), answer.body);
  });
}

async function loadDirectory($) {
  const text = await get("/v1/directory");
  const lines = text.split("\n").filter(Boolean);
  const entries = lines
    .map((line) => /^- (\S+) \[(\w+)\] (.*)$/.exec(line))
    .filter(Boolean)
    .map(([, name, kind, description]) => ({ name, kind, description }));
  put(
    $("#directory"),
    entries.map((entry) => {
      const button = h(
        "button",
        { type: "button", class: "link", "aria-controls": "sheet", "aria-expanded": "false", "data-use-case": entry.name },
        entry.name,
      );
      button.addEventListener("click", () => showSheet($, entry.name, button));
      return h("li", {}, button, " ", h("span", { class: `kind ${entry.kind}` }, entry.kind), " ", entry.description);
    }),
  );
}

async function showSheet($, name, button) {
  const sheetBox = $("#sheet");
  for (const other of $("#directory").querySelectorAll("button")) other.setAttribute("aria-expanded", "false");
  const answer = await call(`/v1/actions?name=${enc(name)}`);
  sheetBox.hidden = false;
  if (!answer.ok) {
    put(sheetBox, h("p", { class: "problem" }, problemText(answer.body)));
    return;
  }
  button.setAttribute("aria-expanded", "true");
  const [sheet] = answer.body;
  const parameters = sheet.parameters.properties || {};
  const required = new Set(sheet.parameters.required || []);
  const typeOf = (schema) => schema.type || (schema.anyOf || []).map((s) => s.type).filter(Boolean).join(" or ") || "any";
  const rows = Object.entries(parameters).map(([field, schema]) => [
    h("code", {}, field),
    typeOf(schema),
    required.has(field) ? "yes" : `no (default ${JSON.stringify(schema.default)})`,
    schema.description || "",
  ]);
  const example = `${sheet.name}(${[...required].map((field) => `${field}=…`).join(", ")})`;
  const parameterTable = h("table");
  table(parameterTable, ["Parameter", "Type", "Required", "Description"], rows);
  put(
    sheetBox,
    h("h3", {}, sheet.name, " ", h("span", { class: `kind ${sheet.kind}` }, sheet.kind)),
    h("p", { class: "prose" }, sheet.description),
    h("div", { class: "scroll" }, parameterTable),
    h("p", {}, "Call it as ", h("code", {}, example), "."),
    sheet.returns && sheet.returns.description ? h("p", {}, `Returns ${sheet.returns.description.replace(/^The /, "the ")}`) : null,
  );
}

function wireAgent($) {
  const form = $("#agent-form");
  const text = $("#agent-text");
  text.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  $("#agent-new").addEventListener("click", () => {
    sessionStorage.removeItem(CONVERSATION);
    put($("#turns"));
    showProblem($("#agent-problem"), null);
    text.focus();
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    put(button, "Sending…");
    const conversation = sessionStorage.getItem(CONVERSATION);
    const answer = await post("/v1/agent/messages", { text: text.value, conversation_id: conversation });
    button.disabled = false;
    put(button, "Send");
    if (!answer.ok) {
      const why = answer.status === 503 ? "The agent is not available: " : "";
      showProblem($("#agent-problem"), why + problemText(answer.body));
      return;
    }
    showProblem($("#agent-problem"), null);
    sessionStorage.setItem(CONVERSATION, answer.body.conversation_id);
    $("#turns").append(turnItem(answer.body, answer.body.conversation_id));
    text.value = "";
    const proposal = answer.body.proposal;
    if (proposal && proposal.status === "pending") {
      location.hash = `#/proposals/${enc(proposal.id)}?conversation=${enc(answer.body.conversation_id)}`;
    }
  });
}

async function loadConversation($) {
  const id = sessionStorage.getItem(CONVERSATION);
  if (!id) return;
  const answer = await call(`/v1/agent/conversations/${enc(id)}`);
  if (!answer.ok) {
    if (answer.status === 404 || answer.status === 403) sessionStorage.removeItem(CONVERSATION);
    else showProblem($("#agent-problem"), problemText(answer.body));
    return;
  }
  put($("#turns"), answer.body.turns.map((turn) => turnItem(turn, id)));
}

/** One turn: what the person asked, and the agent's question, answer, proposal or refusal. */
function turnItem(turn, conversation) {
  const said = [h("p", { class: "you" }, h("strong", {}, "You: "), turn.request)];
  if (turn.kind === "program") {
    const proposal = turn.proposal;
    said.push(h("p", { class: "agent" }, h("strong", {}, "Agent: "), turn.explanation || "A program to review."));
    if (proposal) {
      const status = turn.outcome ? turn.outcome.status : proposal.status;
      said.push(
        h(
          "p",
          {},
          h("a", { href: `#/proposals/${enc(proposal.id)}?conversation=${enc(conversation)}` }, `Proposal (${status})`),
        ),
      );
    }
    if (turn.answer) said.push(answerParts(turn.answer));
  } else if (turn.kind === "refused") {
    said.push(h("p", { class: "problem" }, "The agent could not write a program that passes the checks: ", (turn.errors || []).join("; ")));
  } else if (turn.kind === "answer" && turn.answer) {
    said.push(answerParts(turn.answer));
  } else {
    said.push(h("p", { class: "agent" }, h("strong", {}, turn.kind === "question" ? "Agent asks: " : "Agent: "), turn.text || ""));
  }
  return h("li", { class: "turn" }, said);
}
