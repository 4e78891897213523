// An agent's answer, part by part, each with whose it is: Sluice's facts of the run, data
// quoted with its author (a memo, an owner's name), and the agent's words that the code let
// stand. What the code withheld of the model's reply is counted, with the reasons; its text
// is never shown as the answer.

import { h } from "./dom.js";

/** The answer's parts as elements (data goes into text nodes only). */
export function answerParts(answer) {
  const items = answer.parts.map((part) => {
    if (part.kind === "facts") {
      return h("p", { class: "part facts" }, h("strong", {}, "Sluice: "), part.text);
    }
    if (part.kind === "quoted") {
      return h(
        "p",
        { class: "part quoted" },
        h("span", { class: "author" }, `${part.what} by ${part.author}: `),
        h("q", {}, part.text),
      );
    }
    return h("p", { class: "part assistant" }, h("strong", {}, "Agent: "), part.text);
  });
  const withheld = answer.withheld || [];
  if (withheld.length) {
    const reasons = [...new Set(withheld.map((item) => item.reason))].join("; ");
    const count = withheld.length === 1 ? "1 sentence" : `${withheld.length} sentences`;
    items.push(
      h(
        "p",
        { class: "corrected" },
        h("strong", {}, "Withheld by Sluice: "),
        `${count} of the model's reply, not shown (${reasons}).`,
      ),
    );
  }
  return h("div", { class: "answer-parts" }, items);
}
