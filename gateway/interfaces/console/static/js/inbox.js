// The inbox: the proposals that wait for a decision (one's own; every principal's for
// auditors and admins), newest first, each linked to its review page; and the count the
// header shows beside "Inbox".

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

/** The view for #/inbox. */
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

  function render() {
    $("#inbox-empty").hidden = shown.length > 0;
    $("#inbox-more").hidden = !cursor;
    put($("#inbox-summary"), shown.length ? `${shown.length}${cursor ? "+" : ""} waiting for a decision.` : "");
    table(
      $("#inbox"),
      ["Proposed", "By", "Request", "Events", "Expires", ""],
      shown.map((item) => [
        h("time", { datetime: item.created_at }, when(item.created_at)),
        item.principal,
        item.request || h("code", {}, excerpt(item.source)),
        [String(item.events), "num"],
        h("time", { datetime: item.expires_at }, when(item.expires_at)),
        h("a", { href: `#/proposals/${enc(item.id)}` }, `Review ${shortId(item.id)}`),
      ]),
      "Newest first.",
    );
  }

  $("#inbox-more").addEventListener("click", () => more());
  await more();
  refreshCount();
}

function excerpt(source) {
  const text = source.split(/\s+/).join(" ").trim();
  return text.length <= 80 ? text : `${text.slice(0, 77)}...`;
}
