// The HTTP API, as the signed-in principal. The key lives in sessionStorage: this tab only,
// gone when it closes, never in a cookie the browser would send by itself.

const KEY = "sluice.api-key";

export function apiKey() {
  return sessionStorage.getItem(KEY);
}

export function keep(key) {
  sessionStorage.setItem(KEY, key);
}

export function forget() {
  sessionStorage.clear();
}

/**
 * One request. Resolves to {ok, status, body} whatever the status: errors are RFC 9457
 * problems ({type, title, status, detail, ...}) for the views to show; a network failure
 * becomes a problem too, so callers handle one shape.
 */
export async function call(path, { method = "GET", body, key = apiKey() } = {}) {
  const headers = { Accept: "application/json, application/problem+json, text/plain" };
  if (key) headers.Authorization = `Bearer ${key}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
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
