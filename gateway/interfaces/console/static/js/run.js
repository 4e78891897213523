// A run's whole story: who asked what, the program, its preview, who confirmed it, the
// events it appended and, for auditors, every step it went through.

import { enc, call } from "./api.js";
import { h, put, showProblem, shortId, table, when } from "./dom.js";
import { changedText, signedAmount } from "./effects.js";
import { highlight } from "./highlight.js";
import { signed } from "./money.js";

/** The view for #/runs/{id}: /v1/runs/{id} for auditors, /v1/programs/{id} for one's own. */
export async function showRun(root, id, me) {
  const $ = (selector) => root.querySelector(selector);
  const path = me.audits ? `/v1/runs/${enc(id)}` : `/v1/programs/${enc(id)}`;
  const answer = await call(path);
  put($("#run-title"), `Run ${shortId(id)}`);
  if (!answer.ok) {
    showProblem($("#run-problem"), answer.body);
    return;
  }
  const run = answer.body;
  const outcome = run.outcome;
  $("#run-body").hidden = false;
  put($("#run-title"), `Run ${shortId(run.id)} — ${run.status}`);
  const story = [
    ["Asked by", run.principal],
    ["Request", run.request || "none recorded"],
    ["Kind", `${run.kind} (${run.language})`],
    ["Proposed", when(run.created_at)],
    ["Preview", `${run.preview.events.length} events, hash ${run.preview_hash.slice(0, 12)}…`],
    ["Confirmed by", run.confirmed_by || "no one"],
    ...(run.decided_by ? [["Decided by", run.decided_by]] : []),
    ["Status", outcome.status],
    ["Changed", changedText(outcome.changed)],
    ["Error", outcome.error || "none"],
    ["Result", outcome.result === null || outcome.result === undefined ? "none" : JSON.stringify(outcome.result)],
  ];
  put($("#story"), story.map(([term, value]) => [h("dt", {}, term), h("dd", {}, value)]));
  if (run.status === "pending" && run.principal === me.name) {
    $("#story").after(h("p", {}, h("a", { href: `#/proposals/${enc(run.id)}` }, "Review it and decide")));
  }
  put($("#run-program"), highlight(run.source, run.language === "python" ? "python" : "plan"));
  const committed = outcome.status === "committed";
  const events = run.preview.events;
  put($("#run-events-title"), committed ? "Events appended" : "Events previewed (none written)");
  table(
    $("#run-events"),
    ["#", "Account", "Event", "Amount", "Counterparty", "Memo"],
    events.map((event, index) => [
      String(index + 1),
      event.account || "",
      event.type,
      event.data && event.data.amount ? [signedAmount(event) ? signed(signedAmount(event)) : event.data.amount, "num"] : "",
      (event.data && event.data.counterparty) || "",
      (event.data && event.data.memo) || "",
    ]),
  );
  if (run.history) {
    $("#history-panel").hidden = false;
    put($("#history"), run.history.map((step) => h("li", {}, `${step.type}, ${when(step.timestamp)}`)));
  }
}
