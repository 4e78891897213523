// The proposal page: judge a preview at a glance, then confirm or reject it by its hash;
// once decided, the gateway's outcome, with the agent's answer beside it when there is one.

import { answerParts } from "./answer.js";
import { call, enc, get, getAll, post } from "./api.js";
import { announce, h, problemText, put, shortId, showProblem, table, when } from "./dom.js";
import {
  capsUsed,
  changedText,
  changes,
  effects,
  originLines,
  signedAmount,
  STATEMENT_DEPTH,
  textWarnings,
  warnings,
} from "./effects.js";
import { highlight } from "./highlight.js";
import { moveText, refreshCount } from "./inbox.js";
import { cents, euros, signed } from "./money.js";

/**
 * Accounts the principal may read, by name, with their balance in cents (read consistently);
 * none where the served domain keeps no accounts with balances (a shop).
 */
async function balances() {
  const listing = await balanceListing();
  if (!listing) return new Map();
  const rows = await getAll(`/v1/${enc(listing.name)}?consistent=true&limit=200`);
  return new Map(rows.map((row) => [row[listing.key], cents(row.balance)]));
}

/** The served domain's listing of records with a balance and a timeline (the bank's accounts), or null. */
async function balanceListing() {
  const [listing] = await get("/v1/console/resources");
  return listing && listing.timeline && listing.fields.includes("balance") ? listing : null;
}

/** The statement of each payer the principal may read, for the new-payee warning. */
async function statements(events, readable) {
  const payers = new Set(
    events.filter((e) => e.type === "TransferDebited" && readable.has(e.account)).map((e) => e.account),
  );
  const found = new Map();
  for (const payer of payers) {
    const answer = await call(`/v1/accounts/${enc(payer)}/statement?limit=${STATEMENT_DEPTH}&consistent=true`);
    if (answer.ok) found.set(payer, answer.body.items);
  }
  return found;
}

/** Who proposed, in the gateway's words: `alice's agent (key f18e977785bc, over mcp)`. */
export function proposer(proposal) {
  return proposal.proposed_by || proposal.principal;
}

/** The view for #/proposals/{id}; returns a clean-up (the countdown's timer). */
export async function showProposal(root, id, { conversation, me }) {
  const $ = (selector) => root.querySelector(selector);
  // The countdown's timer, and the balances the page shows (to tell what a fresh preview changed).
  // Whether the served domain keeps balances to show before and after (the bank does; a
  // shop's effects are the money its preview moves).
  const page = { timer: null, balances: new Map(), keepsBalances: Boolean(await balanceListing()), moves: [] };
  const stop = () => clearInterval(page.timer);

  async function render(proposal, { outcome = null, stale = null, problem = null, accounts = null } = {}) {
    stop();
    accounts = accounts || (await balances());
    page.balances = accounts;
    page.moves = proposal.moves || [];
    const pending = proposal.status === "pending";
    // Everything fetched before anything is drawn: a page half drawn (a fresh preview's
    // banner beside the old hash and effects) must never be seen, or acted on.
    const payerStatements = pending ? await statements(proposal.preview.events, accounts) : null;
    // A read completes at once: it is no proposal anyone confirmed, and never shown as one.
    const read = proposal.reads_only && proposal.status === "committed";
    put(
      $("#proposal-title"),
      read ? `Read ${shortId(proposal.id)} — done, nothing written` : `Proposal ${shortId(proposal.id)} — ${proposal.status}`,
    );
    const moves = proposal.moves.length ? `It moves: ${proposal.moves.map(moveText).join("; ")}. ` : "";
    put(
      $("#proposal-meta"),
      moves,
      `By ${proposer(proposal)}, ${proposal.language}, created ${when(proposal.created_at)}. `,
      h("a", { href: `#/runs/${proposal.id}` }, "Its whole story"),
    );
    $("#stale").hidden = !stale;
    const moved = pending && !stale ? proposal.moved_since_preview || [] : [];
    const decides = proposal.principal === me.name && me.scope === "human";
    $("#moved").hidden = moved.length === 0;
    $("#refresh").hidden = !decides;
    if (moved.length) {
      put(
        $("#moved-text"),
        `${moved.join(", ")} moved since this preview was made (${when(proposal.created_at)}): ` +
          "its Before and After are not today's numbers, and confirming it would be refused. " +
          (decides ? "Preview it again before you decide." : ""),
      );
      $("#refresh").disabled = false;
      $("#refresh").onclick = () => refresh(proposal);
    }
    if (stale) put($("#stale-changes"), stale.map((line) => h("li", {}, line)));
    renderProgram(proposal);
    renderOrigins(proposal);
    renderCaps(proposal);
    if (pending) {
      renderEffects(proposal.preview.events, accounts, true);
      renderWarnings([
        ...textWarnings(proposal.preview.calls),
        ...warnings(proposal.preview.events, accounts, payerStatements),
      ]);
      $("#warnings").hidden = false;
      $("#warnings-title").hidden = false;
      renderEvents(proposal.preview.events, "Events it would append");
      $("#outcome").hidden = true;
      if (proposal.principal === me.name && me.scope === "human") renderDecision(proposal);
      else if (proposal.principal === me.name) {
        $("#decision").hidden = true;
        announce(`This key is an agent's: it may propose, not confirm. Sign in with ${proposal.principal}'s own key to decide.`);
      } else {
        $("#decision").hidden = true;
        announce(`Only ${proposal.principal} can confirm or reject this proposal.`);
      }
    } else {
      const decided = outcome || proposal.outcome;
      const events = decided.status === "committed" ? decided.events : proposal.preview.events;
      renderEffects(proposal.preview.events, accounts, false, decided.status === "committed");
      // Warnings help a decision; once it is taken they would only repeat the past.
      $("#warnings").hidden = true;
      $("#warnings-title").hidden = true;
      renderEvents(events, decided.status === "committed" ? "Events appended" : "Events it would have appended (none written)");
      $("#decision").hidden = true;
      renderOutcome(proposal, decided);
      if (conversation) await renderAnswer(proposal.id);
    }
    showProblem($("#decision-problem"), pending ? problem : null);
    if (problem && !pending) announce(problemText(problem));
  }

  function renderProgram(proposal) {
    const request = $("#program-request-text");
    request.hidden = !proposal.request;
    // The words of whoever wrote them: an agent's request is its own, not a fact.
    put(request, proposal.request ? [h("span", { class: "author" }, `${proposal.request_by} wrote: `), h("q", {}, proposal.request)] : "");
    put($("#program"), highlight(proposal.source, proposal.language));
    const preview = proposal.preview;
    const hasResult = preview.result !== null && preview.result !== undefined;
    put($("#result"), hasResult ? `Previewed result: ${JSON.stringify(preview.result)}` : "");
    // What the program printed is its own text: framed apart under its own heading, never
    // run together with the gateway's words.
    $("#printed").hidden = !preview.output;
    put($("#printed-text"), (preview.output || "").replace(/\n+$/, ""));
  }

  function renderOrigins(proposal) {
    const lines = originLines(proposal.preview.calls);
    $("#origins-panel").hidden = lines.length === 0;
    put(
      $("#origins"),
      lines.map((line) => h("li", { class: line.fromText ? "origin from-text" : "origin" }, line.text)),
    );
  }

  function renderCaps(proposal) {
    const used = capsUsed(proposal.preview.caps);
    put($("#caps"), used.length ? used.map((text) => h("li", {}, text)) : h("li", {}, "None"));
  }

  function renderEffects(events, accounts, pending, applied = false) {
    if (!page.keepsBalances) {
      renderMoves(events, pending, applied);
      return;
    }
    const rows = effects(events, accounts).map((row) => {
      const hidden = ["not yours to see", "muted"];
      const difference = [signed(row.difference), row.difference < 0 ? "debit" : row.difference > 0 ? "credit" : ""];
      if (pending) {
        return {
          className: "effect",
          cells: [
            row.account,
            row.visible ? [row.opened ? `${euros(row.before)} (new)` : euros(row.before), "num before"] : hidden,
            row.visible ? [euros(row.after), "num after"] : hidden,
            [difference[0], `num difference ${difference[1]}`],
          ],
        };
      }
      return {
        className: "effect",
        cells: [
          row.account,
          [difference[0], `num difference ${difference[1]}`],
          row.visible ? [euros(accounts.get(row.account) ?? 0), "num now"] : hidden,
        ],
      };
    });
    const headings = pending ? ["Account", "Before", "After", "Difference"] : ["Account", "Difference", "Balance now"];
    const caption = pending ? null : applied ? "Applied." : "Not applied: nothing was written.";
    table($("#effects"), headings, rows.length ? rows : [[h("span", {}, "No account changes")]], caption);
  }

  /** A domain without balances: the money the preview moves, in its own parties' names. */
  function renderMoves(events, pending, applied) {
    const rows = page.moves.map((move) => [h("span", { class: "move" }, moveText(move))]);
    const none = `No money moves (${events.length} ${events.length === 1 ? "event" : "events"})`;
    const caption = pending ? null : applied ? "Applied." : "Not applied: nothing was written.";
    table($("#effects"), ["Money that moves"], rows.length ? rows : [[h("span", {}, none)]], caption);
  }

  function renderWarnings(found) {
    put(
      $("#warnings"),
      found.length ? found.map((w) => h("li", { class: `warning ${w.kind}` }, w.text)) : h("li", { class: "muted" }, "None"),
    );
  }

  function renderEvents(events, title) {
    put($("#events-title"), title);
    const amount = (event) => {
      if (!event.data || !event.data.amount) return "";
      const moved = signedAmount(event);
      return [moved ? signed(moved) : event.data.amount, "num"];
    };
    const first = events.some((e) => e.position) ? "Position" : "#";
    if (!page.keepsBalances) {
      // Another domain's events: each with its record's key and its data as the log holds it.
      const data = (event) => Object.entries(event.data || {}).map(([k, v]) => `${k}: ${typeof v === "object" ? JSON.stringify(v) : v}`).join(", ");
      const rows = events.map((event, index) => [String(event.position ?? index + 1), event.account || "", event.type, data(event)]);
      table($("#events"), [first, "Record", "Event", "Data"], rows.length ? rows : [["", "None", "", ""]]);
      return;
    }
    const rows = events.map((event, index) => [
      String(event.position ?? index + 1),
      event.account || "",
      event.type,
      amount(event),
      (event.data && event.data.counterparty) || "",
      (event.data && event.data.memo) || "",
    ]);
    table($("#events"), [first, "Account", "Event", "Amount", "Counterparty", "Memo"], rows.length ? rows : [["", "None", "", "", "", ""]]);
  }

  function renderDecision(proposal) {
    $("#decision").hidden = false;
    put($("#hash"), `preview ${proposal.preview_hash.slice(0, 12)}…`);
    const confirm = $("#confirm");
    const reject = $("#reject");
    confirm.disabled = false;
    reject.disabled = false;
    const expiry = $("#expiry");
    const ends = new Date(proposal.expires_at).getTime();
    const tick = () => {
      const left = Math.round((ends - Date.now()) / 1000);
      if (left <= 0) {
        put(expiry, `Expired at ${when(proposal.expires_at)}: it can no longer be confirmed.`);
        confirm.disabled = true;
        stop();
        return;
      }
      const minutes = Math.floor(left / 60);
      const seconds = String(left % 60).padStart(2, "0");
      put(expiry, "Expires in ", h("time", { datetime: proposal.expires_at }, `${minutes}:${seconds}`), ` (at ${when(proposal.expires_at)}).`);
    };
    tick();
    page.timer = setInterval(tick, 1000);
    confirm.onclick = () => decide(proposal, "confirm");
    reject.onclick = () => decide(proposal, "reject");
  }

  async function decide(proposal, action) {
    $("#confirm").disabled = true;
    $("#reject").disabled = true;
    const answer =
      action === "confirm"
        ? await post(`/v1/programs/${enc(proposal.id)}/confirm`, { preview_hash: proposal.preview_hash })
        : await post(`/v1/programs/${enc(proposal.id)}/reject`);
    if (answer.ok) {
      const outcome = action === "confirm" ? answer.body : null;
      const fresh = action === "confirm" ? await get(`/v1/programs/${enc(proposal.id)}`) : answer.body;
      await render(fresh, { outcome });
      announce(action === "confirm" ? `Outcome: ${answer.body.status}.` : "Rejected: nothing was written.");
      $("#outcome-title").focus();
      refreshCount(); // the header's count goes down at once
      return;
    }
    if (answer.status === 409 && answer.body.proposal) {
      const fresh = answer.body.proposal;
      const now = await balances();
      await render(fresh, { accounts: now, stale: changes(proposal, fresh, page.balances, now) });
      const newer = String(answer.body.type || "").endsWith(":wrong-preview-hash");
      put(
        $("#stale-title"),
        newer ? "This proposal has a newer preview than the one shown" : "The accounts changed since that preview",
      );
      announce(
        newer
          ? "That preview is no longer this proposal's: nothing was written; review its current preview."
          : "The accounts changed since the preview: nothing was written; review the fresh preview.",
      );
      $("#stale-title").focus();
      return;
    }
    if (answer.status === 410) {
      await render(await get(`/v1/programs/${enc(proposal.id)}`), { problem: answer.body });
      return;
    }
    showProblem($("#decision-problem"), answer.body);
    $("#confirm").disabled = false;
    $("#reject").disabled = false;
  }

  async function refresh(proposal) {
    $("#refresh").disabled = true;
    const answer = await post(`/v1/programs/${enc(proposal.id)}/refresh`);
    if (!answer.ok) {
      showProblem($("#decision-problem"), answer.body);
      $("#refresh").disabled = false;
      return;
    }
    const fresh = answer.body;
    const now = await balances();
    await render(fresh, { accounts: now, stale: changes(proposal, fresh, page.balances, now) });
    put($("#stale-title"), "The accounts changed since that preview");
    announce("A fresh preview, with today's numbers: review it before you decide.");
    $("#stale-title").focus();
  }

  function renderOutcome(proposal, outcome) {
    const section = $("#outcome");
    section.hidden = false;
    section.dataset.status = outcome.status;
    const read = proposal.reads_only && outcome.status === "committed";
    const fields = [
      ["Status", read ? "done (a read)" : outcome.status, "status"],
      ["Changed", changedText(outcome.changed), "changed"],
      ["Events", String(outcome.events.length), "events"],
      ["Error", outcome.error || "none", "error"],
      ["Result", outcome.result === null || outcome.result === undefined ? "none" : JSON.stringify(outcome.result), "result"],
      read
        ? ["Confirmation", "none needed: it writes nothing", "confirmed-by"]
        : ["Confirmed by", proposal.confirmed_by || "no one", "confirmed-by"],
    ];
    if (proposal.decided_by) fields.push(["Decided by", proposal.decided_by, "decided-by"]);
    put(
      $("#outcome-fields"),
      fields.map(([term, value, name]) => [h("dt", {}, term), h("dd", { "data-field": name }, value)]),
    );
  }

  async function renderAnswer(runId) {
    const box = $("#answer");
    const answer = await call(`/v1/agent/conversations/${enc(conversation)}`);
    if (!answer.ok) {
      box.hidden = false;
      put(box, h("h3", {}, "The agent's answer"), h("p", { class: "muted" }, `No answer: ${problemText(answer.body)}`));
      return;
    }
    const turn = answer.body.turns.find((t) => t.proposal && t.proposal.id === runId);
    if (!turn || (!turn.answer && !turn.answer_error)) return;
    box.hidden = false;
    if (!turn.answer) {
      put(box, h("h3", {}, "The agent's answer"), h("p", { class: "muted" }, `Not yet: ${turn.answer_error}`));
      return;
    }
    put(box, h("h3", {}, "The agent's answer"), answerParts(turn.answer));
  }

  await render(await get(`/v1/programs/${enc(id)}`));
  return stop;
}
