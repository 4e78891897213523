// The inbox: the proposals that wait for a decision (one's own; every principal's for
// auditors and admins), newest first, each linked to its review page; and the count the
// header shows beside "Inbox". Each row tells the decision at a glance: the money it moves,
// who proposed it (the person, or the person's agent, and over what), the request in the
// words of whoever wrote it, and the time left.

import { enc, get } from "./api.js";
import { byId, h, put, shortId, table, when } from "./dom.js";

const PAGE = 50;
// The header counts at most this many; more reads as "200+".
const COUNTED = 200;

/** The number of pending proposals in the header's "Inbox" link. */
export async function refreshCount() {
  const badge = byId("inbox-count");
  if (!badge) return;
  let page;
  try {
    page = await get(`/v1/programs?status=pending&limit=${COUNTED}&consistent=true`);
  } catch {
    return; // the count is a convenience: the inbox itself says what went wrong
  }
  const count = `${page.items.length}${page.next_cursor ? "+" : ""}`;
  put(badge, count);
  badge.hidden = page.items.length === 0;
  badge.setAttribute("aria-label", `${count} waiting`);
}

/** A move of money in words: `alice pays bob 7.00 EUR`. */
export function moveText(move) {
  const money = `${move.amount} ${move.currency}`;
  if (move.payer && move.payee) return `${move.payer} pays ${move.payee} ${money}`;
  if (move.payee) return `${money} paid into ${move.payee}`;
  return `${money} taken out of ${move.payer}`;
}

/** The request, as the words of whoever wrote them (an agent's are its own, not a fact). */
export function requestText(item) {
  if (!item.request) return null;
  return h("q", { class: "request", "data-author": item.request_by }, item.request);
}

/** Time left to decide, as `12:05`; null once it has run out. */
export function timeLeft(expiresAt, now = Date.now()) {
  const left = Math.round((new Date(expiresAt).getTime() - now) / 1000);
  if (left <= 0) return null;
  const minutes = Math.floor(left / 60);
  return `${minutes}:${String(left % 60).padStart(2, "0")}`;
}

/** The view for #/inbox; returns a clean-up (the time-left clock). */
export async function showInbox(root) {
  const $ = (selector) => root.querySelector(selector);
  const shown = [];
  let cursor = null;

  async function more() {
    const after = cursor ? `&cursor=${enc(cursor)}` : "";
    const page = await get(`/v1/programs?status=pending&limit=${PAGE}&consistent=true${after}`);
    shown.push(...page.items);
    cursor = page.next_cursor;
    render();
  }

  function left(item) {
    const text = timeLeft(item.expires_at);
    return h("time", { datetime: item.expires_at, class: "left", title: when(item.expires_at) }, text ? `${text} left` : "expired");
  }

  function render() {
    $("#inbox-empty").hidden = shown.length > 0;
    $("#inbox-more").hidden = !cursor;
    put($("#inbox-summary"), shown.length ? `${shown.length}${cursor ? "+" : ""} waiting for a decision.` : "");
    table(
      $("#inbox"),
      ["Money it moves", "Proposed by", "Request", "Status", "Time left", ""],
      shown.map((item) => [
        item.moves.length ? item.moves.map((move) => h("div", { class: "move" }, moveText(move))) : `No money (${item.events} events)`,
        item.proposed_by,
        item.request
          ? h("span", {}, h("span", { class: "author" }, `${item.request_by} wrote: `), requestText(item))
          : h("code", {}, excerpt(item.source)),
        item.status,
        left(item),
        h("a", { href: `#/proposals/${enc(item.id)}` }, `Review ${shortId(item.id)}`),
      ]),
      "Newest first.",
    );
  }

  $("#inbox-more").addEventListener("click", () => more());
  await more();
  refreshCount();
  const clock = setInterval(() => {
    root.querySelectorAll("time.left").forEach((cell, index) => {
      const text = timeLeft(shown[index].expires_at);
      put(cell, text ? `${text} left` : "expired");
    });
  }, 1000);
  return () => clearInterval(clock);
}

function excerpt(source) {
  const text = source.split(/\s+/).join(" ").trim();
  return text.length <= 80 ? text : `${text.slice(0, 77)}...`;
}
