// The audit page of a record of the served domain's first listing (/v1/console/resources).
// The bank's account: its balance over time and the timeline of its movements, each linked
// to the run that committed it. A record with no timeline (a shop's product): its fields as
// the domain's read models hold them now.

import { enc, get, getAll } from "./api.js";
import { h, put, shortId, showProblem, table, when } from "./dom.js";
import { balanceChart } from "./chart.js";

const KINDS = {
  opened: "Opened",
  deposit: "Deposit",
  withdrawal: "Withdrawal",
  transfer_out: "Transfer out",
  transfer_in: "Transfer in",
  closed: "Closed",
};

/** The view for #/audit and #/audit/{id}. */
export async function showAudit(root, wanted) {
  const $ = (selector) => root.querySelector(selector);
  const [listing] = await get("/v1/console/resources");
  if (!listing) {
    $("#audit-body").hidden = true;
    showProblem($("#audit-problem"), "The served domain lists no records to audit.");
    return;
  }
  const records = await getAll(`/v1/${enc(listing.name)}?consistent=true&limit=200`);
  const key = (row) => String(row[listing.key]);
  const chosen = wanted || (records[0] && key(records[0]));
  $("#record-nav").setAttribute("aria-label", listing.name[0].toUpperCase() + listing.name.slice(1));
  put(
    $("#account-links"),
    records.map((row) =>
      h(
        "li",
        {},
        h("a", { href: `#/audit/${enc(key(row))}`, "aria-current": key(row) === chosen ? "page" : false }, key(row)),
      ),
    ),
  );
  if (!chosen) {
    $("#audit-body").hidden = true;
    showProblem($("#audit-problem"), `No ${listing.one} to show.`);
    return;
  }
  put($("#audit-title"), `Audit of ${chosen}`);
  if (!listing.timeline) {
    showRecord($, listing, records.find((row) => key(row) === chosen), chosen);
    return;
  }
  let entries;
  try {
    entries = (await get(`/v1/console/${enc(listing.name)}/${enc(chosen)}/timeline?limit=100`)).items;
  } catch (problem) {
    $("#audit-body").hidden = true;
    showProblem($("#audit-problem"), problem);
    return;
  }
  balanceChart($("#chart"), [...entries].reverse(), chosen);
  const rows = entries.map((entry) => [
    h("time", { datetime: entry.timestamp }, when(entry.timestamp)),
    KINDS[entry.kind] || entry.kind,
    [entry.amount, "num"],
    [entry.balance, "num"],
    entry.counterparty || "",
    entry.memo,
    entry.run_id ? h("a", { href: `#/runs/${enc(entry.run_id)}` }, `run ${shortId(entry.run_id)}`) : "—",
  ]);
  table(
    $("#timeline"),
    ["When", "Movement", "Amount", "Balance", "Counterparty", "Memo", "Run"],
    rows,
    "Newest first.",
  );
}

/** A record without a timeline: its fields, as the listing reads them now. */
function showRecord($, listing, record, chosen) {
  $("#chart-panel").hidden = true;
  put($("#timeline-title"), `The ${listing.one} now`);
  if (!record) {
    $("#audit-body").hidden = true;
    showProblem($("#audit-problem"), `No ${listing.one} ${chosen} among the ${listing.name} you may read.`);
    return;
  }
  const shown = (value) => (value === null || value === undefined ? "—" : typeof value === "object" ? JSON.stringify(value) : String(value));
  table($("#timeline"), ["Field", "Value"], listing.fields.map((field) => [field, shown(record[field])]), `As /v1/${listing.name} lists it.`);
}
