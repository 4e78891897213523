// The console's entry: sign-in, the header, and a router from the address's #/path to a view.
// Addresses: #/ask, #/inbox, #/proposals/{id}[?conversation={id}], #/audit[/{account}],
// #/runs/{id}.

import { call, signIn, signOutSession } from "./api.js";
import { announce, byId, h, problemText, put, showProblem, table, view } from "./dom.js";
import { showAsk } from "./ask.js";
import { showAudit } from "./audit.js";
import { refreshCount, showInbox } from "./inbox.js";
import { showProposal } from "./review.js";
import { showRun } from "./run.js";

const ROUTES = [
  [/^#\/ask$/, "t-ask", (root) => showAsk(root)],
  [/^#\/inbox$/, "t-inbox", (root) => showInbox(root)],
  [/^#\/proposals\/([\w-]+)$/, "t-proposal", (root, [id], query, me) =>
    showProposal(root, id, { conversation: query.get("conversation"), me })],
  [/^#\/audit(?:\/([\w-]+))?$/, "t-audit", (root, [account]) => showAudit(root, account)],
  [/^#\/runs\/([\w-]+)$/, "t-run", (root, [id], _query, me) => showRun(root, id, me)],
];

let me = null; // the signed-in principal, from /v1/console/me
// The gateway's answer when no key came at all: this browser session never signed in.
const NOT_SIGNED_IN = "send `Authorization: Bearer <api key>`";
let cleanUp = null; // the current view's timers, stopped when another view replaces it

function mount(templateId) {
  if (cleanUp) cleanUp();
  cleanUp = null;
  const root = h("div", { class: "view" }, view(templateId));
  put(byId("view"), root);
  return root;
}

async function route() {
  if (!me) return;
  const [path, search = ""] = location.hash.split("?");
  const match = ROUTES.map(([pattern, template, show]) => [pattern.exec(path), template, show]).find(([found]) => found);
  if (!match) {
    location.replace("#/ask");
    return;
  }
  const [found, template, show] = match;
  const root = mount(template);
  announce("");
  refreshCount();
  const heading = root.querySelector("h1");
  heading.focus();
  try {
    const stop = await show(root, found.slice(1).map((part) => part && decodeURIComponent(part)), new URLSearchParams(search), me);
    if (typeof stop === "function") {
      if (byId("view").contains(root)) cleanUp = stop;
      else stop();
    }
  } catch (problem) {
    if (problem && problem.status === 401) {
      signOut("Your API key is no longer accepted; sign in again.");
      return;
    }
    const box = h("p", { class: "problem", role: "alert" }, problemText(problem));
    heading.after(box);
  }
}

function signedIn(principal) {
  me = principal;
  const owned = principal.owned || "accounts";
  const reach = principal.accounts ? `${owned} ${principal.accounts.join(", ") || "none"}` : `all ${owned}`;
  put(byId("who"), `${principal.name} (${principal.role}, ${reach})`);
  byId("nav").hidden = false;
  byId("sign-out").hidden = false;
}

async function signOut(message = "") {
  await signOutSession();
  me = null;
  put(byId("who"));
  byId("nav").hidden = true;
  byId("sign-out").hidden = true;
  showSignIn(message);
}

function showSignIn(message) {
  const root = mount("t-sign-in");
  const input = root.querySelector("#api-key");
  showProblem(root.querySelector("#sign-in-error"), message || null);
  root.querySelector("#sign-in-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const key = input.value.trim();
    const answer = await signIn(key);
    if (!answer.ok) {
      const why = answer.status === 401 ? "This API key is unknown or revoked." : problemText(answer.body);
      showProblem(root.querySelector("#sign-in-error"), why);
      input.focus();
      return;
    }
    input.value = "";
    signedIn(answer.body);
    announce(`Signed in as ${answer.body.name}.`);
    go();
  });
  input.focus();
  showKeyHelp(root);
}

/** Where a key comes from; in demo mode, the demo keys (the gateway says which it is). */
async function showKeyHelp(root) {
  const answer = await call("/v1/console/sign-in");
  if (!answer.ok) return; // a hint only: the form works without it
  const help = answer.body;
  put(root.querySelector("#key-source"), help.where_keys_come_from);
  root.querySelector("#key-help").hidden = false;
  if (!help.demo) return;
  const people = [...help.demo_keys].sort((a, b) => (a.role === "customer" ? 0 : 1) - (b.role === "customer" ? 0 : 1));
  table(
    root.querySelector("#demo-key-table"),
    ["Who", "Role", "Their key", "Their agent's key"],
    people.map((p) => [p.name, p.role, h("code", {}, p.key), h("code", {}, p.agent_key)]),
  );
  root.querySelector("#demo-keys").hidden = false;
}

async function start() {
  byId("sign-out").addEventListener("click", () => signOut("Signed out."));
  window.addEventListener("hashchange", route);
  // The browser session's sign-in, if any: the cookie is the gateway's to read, not ours.
  const answer = await call("/v1/console/me");
  if (answer.status === 401 && answer.body.detail === NOT_SIGNED_IN) {
    showSignIn("");
    return;
  }
  if (!answer.ok) {
    signOut(answer.status === 401 ? "Your API key is no longer accepted; sign in again." : problemText(answer.body));
    return;
  }
  signedIn(answer.body);
  go();
}

/** Show the view the address names; a new address shows it through the hashchange event. */
function go() {
  if (location.hash.startsWith("#/")) route();
  else location.replace("#/ask");
}

start();
