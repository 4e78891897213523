// What a preview would do to the accounts, what deserves a second look, and what changed
// between two previews. Pure functions over the API's JSON: no requests, no DOM.

import { cents, euros, signed } from "./money.js";

// The signed amount of each kind of event; the others (Opened, Closed) move no money.
const SIGNS = { TransferDebited: -1, Withdrawn: -1, TransferCredited: 1, Deposited: 1 };
export const LARGE = 100000; // 1000.00, in cents
export const STATEMENT_DEPTH = 100; // the statement endpoint's largest page

export function signedAmount(event) {
  const sign = SIGNS[event.type] || 0;
  return sign * (cents(event.data && event.data.amount) || 0);
}

/**
 * One row per account the events touch, in the order first touched:
 * {account, before, after, difference, opened, visible}. `balances` maps the accounts the
 * principal may read to their balance in cents; for the others before/after are null.
 */
export function effects(events, balances) {
  const rows = new Map();
  for (const event of events) {
    if (!event.account) continue;
    if (!rows.has(event.account)) {
      rows.set(event.account, { account: event.account, difference: 0, opened: false });
    }
    const row = rows.get(event.account);
    row.difference += signedAmount(event);
    if (event.type === "Opened") row.opened = true;
  }
  for (const row of rows.values()) {
    const known = balances.has(row.account);
    row.visible = known || row.opened;
    row.before = known ? balances.get(row.account) : row.opened ? 0 : null;
    row.after = row.before === null ? null : row.before + row.difference;
  }
  return [...rows.values()];
}

/** Each payment by an account: {payer, payee, amount (cents), type}. */
export function payments(events) {
  return events
    .filter((e) => e.type === "TransferDebited" || e.type === "Withdrawn")
    .map((e) => ({
      payer: e.account,
      payee: e.type === "TransferDebited" ? e.data.counterparty : null,
      amount: cents(e.data.amount) || 0,
      type: e.type,
    }));
}

/**
 * Warnings, each one sentence: a large amount (over 1000.00, or over half the payer's
 * balance before the program), and a new payee (no payment to it in the payer's statement).
 * `statements` maps a payer to its statement entries (newest first), when readable.
 */
export function warnings(events, balances, statements) {
  const found = [];
  const seen = new Set();
  for (const payment of payments(events)) {
    const what = payment.payee ? `pays ${payment.payee}` : "withdraws";
    const balance = balances.get(payment.payer);
    if (payment.amount > LARGE) {
      found.push({
        kind: "large",
        text: `Large amount: ${payment.payer} ${what} ${euros(payment.amount)}, over ${euros(LARGE)}.`,
      });
    } else if (balance !== undefined && payment.amount * 2 > balance) {
      found.push({
        kind: "large",
        text: `Large amount: ${payment.payer} ${what} ${euros(payment.amount)}, over half of its balance of ${euros(balance)}.`,
      });
    }
    const pair = `${payment.payer}>${payment.payee}`;
    const statement = statements.get(payment.payer);
    if (!payment.payee || seen.has(pair) || !statement) continue;
    seen.add(pair);
    const paidBefore = statement.some(
      (entry) => entry.kind === "transfer_out" && entry.counterparty === payment.payee,
    );
    if (!paidBefore) {
      const depth = statement.length >= STATEMENT_DEPTH ? ` in its latest ${STATEMENT_DEPTH} movements` : " before";
      found.push({ kind: "new-payee", text: `New payee: ${payment.payer} has never paid ${payment.payee}${depth}.` });
    }
  }
  return found;
}

/**
 * Where each argument the program did not write itself came from, one sentence each, as
 * the terminal and the MCP confirmation say it: {text, fromText}. `fromText` marks an
 * argument set by text a party wrote (a memo, a name): the person sees it before Confirm.
 */
export function originLines(calls) {
  const described = (o) =>
    o.label === "unknown"
      ? "a value Sluice cannot trace"
      : `${o.call} (line ${o.line})${o.field ? ` ${o.field}` : ""}, ${o.label === "fact" ? "a fact" : "text"}`;
  const lines = [];
  for (const call of calls || []) {
    for (const [argument, origins] of Object.entries(call.origins || {})) {
      const given = origins.filter((o) => !o.chosen);
      const chosen = origins.filter((o) => o.chosen);
      const writers = new Set();
      for (const o of given) {
        if (o.label === "fact") continue;
        for (const writer of o.label === "unknown" || !o.authors.length ? ["an unknown author"] : o.authors) writers.add(writer);
      }
      const parts = [given.length ? `from ${given.map(described).join(", ")}` : "written in the program"];
      if (chosen.length) parts.push(`chosen by ${chosen.map(described).join(", ")}`);
      const by = [...writers].sort().join(" or ");
      const warning = by ? ` (TEXT WRITTEN BY ${by.toUpperCase()})` : "";
      lines.push({ text: `${call.name} (line ${call.line}) ${argument}: ${parts.join("; ")}${warning}`, fromText: Boolean(by), argument, call: call.name, by });
    }
  }
  return lines;
}

/** A warning for each argument that text another party wrote set. */
export function textWarnings(calls) {
  return originLines(calls)
    .filter((line) => line.fromText)
    .map((line) => ({
      kind: "from-text",
      text: `From someone else's words: ${line.call}'s ${line.argument} was set by text written by ${line.by}.`,
    }));
}

/** The outcome's `changed`: "nothing", "1 event", "2 events". */
export function changedText(changed) {
  if (changed === "nothing") return "nothing";
  return `${changed} event${changed === 1 ? "" : "s"}`;
}

/** "transfer 1 of 10", "calls 2 of 50", "get_balance 1 (no cap)". */
export function capsUsed(caps) {
  return Object.entries(caps || {}).map(([name, { used, limit }]) =>
    limit === null || limit === undefined ? `${name} ${used} (no cap)` : `${name} ${used} of ${limit}`,
  );
}

function describe(event) {
  const amount = event.data && event.data.amount;
  return `${event.account} ${event.type}${amount ? ` ${amount}` : ""}`;
}

/**
 * What differs between the preview a person was reading and a fresh one, one line each:
 * events whose amount or kind changed, events added or gone, balances read before, result.
 */
export function changes(old, fresh, oldBalances, freshBalances) {
  const lines = [];
  const before = old.preview.events;
  const after = fresh.preview.events;
  for (let i = 0; i < Math.max(before.length, after.length); i++) {
    const a = before[i];
    const b = after[i];
    if (a && !b) lines.push(`No longer: ${describe(a)}.`);
    else if (!a && b) lines.push(`New: ${describe(b)}.`);
    else if (a.account !== b.account || a.type !== b.type) lines.push(`Event ${i + 1}: ${describe(a)} is now ${describe(b)}.`);
    else if (a.data.amount !== b.data.amount) lines.push(`${a.account} ${a.type}: ${a.data.amount} → ${b.data.amount}.`);
  }
  const accounts = new Set([...before, ...after].map((e) => e.account).filter(Boolean));
  for (const account of accounts) {
    const was = oldBalances.get(account);
    const now = freshBalances.get(account);
    if (was !== undefined && now !== undefined && was !== now) {
      lines.push(`${account}'s balance before: ${euros(was)} → ${euros(now)} (${signed(now - was)}).`);
    }
  }
  const oldResult = JSON.stringify(old.preview.result);
  const freshResult = JSON.stringify(fresh.preview.result);
  if (oldResult !== freshResult) lines.push(`Result: ${oldResult} → ${freshResult}.`);
  if (lines.length === 0) lines.push("The events and amounts are the same; an account the program read has moved on.");
  return lines;
}
