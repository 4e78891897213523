// The HTTP API, as the signed-in principal. Signing in hands the key to the gateway once
// (POST /v1/console/session); from then on the browser session holds it in a cookie that no
// script of this page can read (HttpOnly), that only this origin's own requests carry
// (SameSite=Strict, and X-Sluice-Client with it), so every tab is signed in until the browser
// closes or the person signs out. No key is kept in any storage a script reads.

/** Sign the browser in with a key: the principal ({name, role, ...}) or the problem. */
export function signIn(key) {
  return call("/v1/console/session", { method: "POST", key });
}

/** Sign the browser out (the cookie is cleared), and forget this tab's drafts. */
export async function signOutSession() {
  sessionStorage.clear();
  await call("/v1/console/session", { method: "DELETE" });
}

/**
 * One request. Resolves to {ok, status, body} whatever the status: errors are RFC 9457
 * problems ({type, title, status, detail, ...}) for the views to show; a network failure
 * becomes a problem too, so callers handle one shape.
 */
export async function call(path, { method = "GET", body, key = null } = {}) {
  const headers = {
    Accept: "application/json, application/problem+json, text/plain",
    "X-Sluice-Client": "console",
  };
  if (key) headers.Authorization = `Bearer ${key}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
      credentials: "same-origin",
    });
  } catch (error) {
    return { ok: false, status: 0, body: { title: "No answer", detail: `the gateway did not answer (${error.message})` } };
  }
  const type = response.headers.get("content-type") || "";
  const parsed = type.includes("json") ? await response.json() : await response.text();
  return { ok: response.ok, status: response.status, body: parsed };
}

/** The body of a successful GET, or throw its problem (for views that cannot go on without it). */
export async function get(path) {
  const answer = await call(path);
  if (!answer.ok) throw answer.body;
  return answer.body;
}

/** Every item of a paged list ({items, next_cursor}), page after page. */
export async function getAll(path) {
  const items = [];
  const join = path.includes("?") ? "&" : "?";
  let page = await get(path);
  items.push(...page.items);
  while (page.next_cursor) {
    page = await get(`${path}${join}cursor=${enc(page.next_cursor)}`);
    items.push(...page.items);
  }
  return items;
}

export function post(path, body = {}) {
  return call(path, { method: "POST", body });
}

export const enc = encodeURIComponent;
