// An account's balance over time as an inline SVG: one point per movement, oldest first,
// evenly spaced (movements made in the same second stay apart), with the range labelled.

import { h, put, svg, when } from "./dom.js";
import { cents, euros } from "./money.js";

const PAD = { left: 72, right: 16, top: 16, bottom: 36 };
const SHORT = { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" };

function short(iso) {
  return new Date(iso).toLocaleString(undefined, SHORT);
}

/** Draw `entries` (oldest first, each with balance, kind, amount, timestamp) into a <figure>. */
export function balanceChart(figure, entries, account) {
  if (entries.length === 0) {
    put(figure, h("figcaption", {}, `${account} has no movements yet.`));
    return;
  }
  // Drawn at the figure's own width, so that its labels keep their size on a phone.
  const width = Math.max(280, Math.round(figure.getBoundingClientRect().width) || 640);
  const height = Math.round(Math.min(260, Math.max(180, width * 0.4)));
  const values = entries.map((entry) => cents(entry.balance));
  const low = Math.min(0, ...values);
  const high = Math.max(...values, low + 100);
  const plotWidth = width - PAD.left - PAD.right;
  const plotHeight = height - PAD.top - PAD.bottom;
  const x = (i) => PAD.left + (entries.length === 1 ? plotWidth / 2 : (i * plotWidth) / (entries.length - 1));
  const y = (value) => PAD.top + plotHeight - ((value - low) * plotHeight) / (high - low);

  const summary = `Balance of ${account} over its last ${entries.length} movements: from ${euros(values[0])} to ${euros(values.at(-1))}, lowest ${euros(Math.min(...values))}, highest ${euros(Math.max(...values))}.`;
  const rules = [...new Set([low, 0, high])].map((value) => [
    svg("line", { class: "rule", x1: PAD.left, x2: width - PAD.right, y1: y(value), y2: y(value) }),
    svg("text", { class: "label", x: PAD.left - 8, y: y(value) + 4, "text-anchor": "end" }, euros(value)),
  ]);
  const line = svg("polyline", {
    class: "line",
    points: values.map((value, i) => `${x(i).toFixed(1)},${y(value).toFixed(1)}`).join(" "),
  });
  const points = entries.map((entry, i) =>
    svg(
      "circle",
      { class: "point", cx: x(i).toFixed(1), cy: y(values[i]).toFixed(1), r: 4 },
      svg("title", {}, `${when(entry.timestamp)}: ${entry.kind} ${entry.amount}, balance ${entry.balance}`),
    ),
  );
  const dates = [
    svg("text", { class: "label", x: PAD.left, y: height - 10, "text-anchor": "start" }, short(entries[0].timestamp)),
    entries.length > 1
      ? svg("text", { class: "label", x: width - PAD.right, y: height - 10, "text-anchor": "end" }, short(entries.at(-1).timestamp))
      : null,
  ];
  const chart = svg(
    "svg",
    { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-labelledby": "chart-summary", class: "balance-chart" },
    rules,
    line,
    points,
    dates,
  );
  put(figure, chart, h("figcaption", { id: "chart-summary" }, summary));
}
