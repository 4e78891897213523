// Small DOM helpers. Data only ever becomes text nodes, never markup: a memo or an account
// name cannot inject anything into the page.

const SVG_NS = "http://www.w3.org/2000/svg";

/** An element with attributes (strings; `false`/null skipped) and children (nodes or text). */
export function h(tag, attributes = {}, ...children) {
  return fill(document.createElement(tag), attributes, children);
}

/** The same for SVG elements. */
export function svg(tag, attributes = {}, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attributes, children);
}

function fill(element, attributes, children) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** A copy of a view's <template> from index.html. */
export function view(templateId) {
  const template = document.getElementById(templateId);
  return template.content.cloneNode(true);
}

export function byId(id) {
  return document.getElementById(id);
}

/** Replace an element's children. */
export function put(element, ...children) {
  element.replaceChildren();
  return fill(element, {}, children);
}

/** Show a problem's one-line detail in an alert region, or hide it with null. */
export function showProblem(element, problem) {
  if (!problem) {
    element.hidden = true;
    element.textContent = "";
    return;
  }
  element.textContent = problemText(problem);
  element.hidden = false;
}

export function problemText(problem) {
  if (typeof problem === "string") return problem;
  const place = problem.line ? ` (line ${problem.line}, column ${problem.column})` : "";
  const detail = problem.detail || problem.title || "unknown error";
  return detail.includes("(line") ? detail : detail + place;
}

/** A table from column headings and rows of cells (each a node, text, or [text, class]). */
export function table(element, headings, rows, caption) {
  const head = h("thead", {}, h("tr", {}, headings.map((text) => h("th", { scope: "col" }, text))));
  const body = h(
    "tbody",
    {},
    rows.map((row) =>
      h(
        "tr",
        row.className ? { class: row.className } : {},
        (row.cells || row).map((cell) =>
          Array.isArray(cell) ? h("td", { class: cell[1] }, cell[0]) : h("td", {}, cell),
        ),
      ),
    ),
  );
  put(element, caption ? h("caption", {}, caption) : null, head, body);
  return element;
}

/** Say something to screen readers and show it in the status line. */
export function announce(text) {
  byId("status").textContent = text;
}

/** A short, readable local time. */
export function when(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

export function shortId(id) {
  return id ? String(id).slice(0, 8) : "";
}
