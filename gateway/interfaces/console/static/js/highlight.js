// A tiny highlighter for programs: keywords, strings, numbers, comments and calls of Python,
// and keys, strings, numbers and literals of a JSON plan. It only wraps text in spans.

import { h } from "./dom.js";

const PYTHON = new RegExp(
  [
    String.raw`(?<comment>#[^\n]*)`,
    String.raw`(?<string>"""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?)`,
    String.raw`(?<number>\b\d[\d_]*(?:\.\d+)?\b)`,
    String.raw`(?<keyword>\b(?:and|as|break|continue|def|elif|else|False|for|if|in|is|lambda|None|not|or|pass|return|True|while)\b)`,
    String.raw`(?<call>\b[A-Za-z_]\w*(?=\s*\())`,
  ].join("|"),
  "g",
);

const PLAN = new RegExp(
  [
    String.raw`(?<key>"(?:[^"\\]|\\.)*"(?=\s*:))`,
    String.raw`(?<string>"(?:[^"\\]|\\.)*")`,
    String.raw`(?<number>-?\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b)`,
    String.raw`(?<keyword>\b(?:true|false|null)\b)`,
  ].join("|"),
  "g",
);

/** The source as a fragment of text nodes and <span class="tok-KIND"> elements. */
export function highlight(source, language) {
  const pattern = language === "python" ? PYTHON : PLAN;
  const fragment = document.createDocumentFragment();
  let last = 0;
  for (const match of source.matchAll(pattern)) {
    if (match.index > last) fragment.append(source.slice(last, match.index));
    const kind = Object.keys(match.groups).find((name) => match.groups[name] !== undefined);
    fragment.append(h("span", { class: `tok-${kind}` }, match[0]));
    last = match.index + match[0].length;
  }
  fragment.append(source.slice(last));
  return fragment;
}
