// The audit page of an account: its balance over time and the timeline of its movements,
// each linked to the run that committed it.

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

/** The view for #/audit and #/audit/{account}. */
export async function showAudit(root, account) {
  const $ = (selector) => root.querySelector(selector);
  const accounts = await getAll("/v1/accounts?consistent=true&limit=200");
  const chosen = account || (accounts[0] && accounts[0].account);
  put(
    $("#account-links"),
    accounts.map((row) =>
      h(
        "li",
        {},
        h("a", { href: `#/audit/${enc(row.account)}`, "aria-current": row.account === chosen ? "page" : false }, row.account),
      ),
    ),
  );
  if (!chosen) {
    $("#audit-body").hidden = true;
    showProblem($("#audit-problem"), "No account to show.");
    return;
  }
  put($("#audit-title"), `Audit of ${chosen}`);
  let entries;
  try {
    entries = (await get(`/v1/console/accounts/${enc(chosen)}/timeline?limit=100`)).items;
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
