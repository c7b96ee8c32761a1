// The admin console's requests: the JSON API with the admin token, and the status region that tells what
// the server answered to each action.

import { askToken, forgetToken, keepToken, storedToken } from "./tokens.js";

export const adminTokenKey = "rankd.token.admin";

const tokenHelp = "An admin token (RANKD_ADMIN_TOKEN, or an admin token of the configuration file) lets this page " +
  "change contests. It is kept in this browser only; “Forget token” removes it.";

// adminToken returns the admin token kept in this browser, asking for one when there is none (or when the
// last one was refused: error says why, or when another is wanted: ask); "" when the question is cancelled.
export async function adminToken(error = "", ask = false) {
  const kept = storedToken(adminTokenKey);
  if (kept && error === "" && !ask) return kept;
  const t = await askToken({ title: "Admin token", help: tokenHelp, error });
  if (t) keepToken(adminTokenKey, t);
  return t;
}

// hasAdminToken reports whether this browser keeps an admin token.
export function hasAdminToken() {
  return storedToken(adminTokenKey) !== "";
}

export function forgetAdminToken() {
  forgetToken(adminTokenKey);
}

// Answer is what the server said to a request: ok (a 2xx status), the status (0: no answer), the JSON body
// and a message (the error's, for a failure).
//
// call sends a request with the admin token (asking for it when there is none) and a JSON body (undefined
// for none). A token the server refuses (401, 403) is asked for again, with the server's reason, and the
// request sent again with the new one: a refused request changed nothing. It never throws.
export async function call(method, path, body, { token = true } = {}) {
  let bearer = token ? await adminToken() : "";
  for (;;) {
    const a = await send(method, path, body, bearer);
    if (!token || (a.status !== 401 && a.status !== 403)) return a;
    forgetToken(adminTokenKey);
    bearer = await adminToken(`The server refused the token: ${a.message}`);
    if (!bearer) return a;
  }
}

// download saves the file a GET of path answers (with the admin token) under its server-given name, as a link
// would if it could carry the token. It never throws; the answer says how it went.
export async function download(path) {
  const token = await adminToken();
  let resp;
  try {
    resp = await fetch(path, { headers: token ? { Authorization: "Bearer " + token } : {}, cache: "no-store" });
  } catch (e) {
    return { ok: false, status: 0, body: null, message: `the server could not be reached (${e.message})` };
  }
  if (!resp.ok) {
    const data = await resp.json().catch(() => null);
    const message = data && data.message ? `${data.code}: ${data.message}` : `HTTP ${resp.status} ${resp.statusText}`.trim();
    return { ok: false, status: resp.status, body: data, message };
  }
  const name = /filename="?([^";]+)"?/.exec(resp.headers.get("Content-Disposition") || "")?.[1] || "standings";
  const url = URL.createObjectURL(await resp.blob());
  const a = Object.assign(document.createElement("a"), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
  return { ok: true, status: resp.status, body: null, message: "", name };
}

async function send(method, path, body, token) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = "Bearer " + token;
  const init = { method, headers, cache: "no-store" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let resp;
  try {
    resp = await fetch(path, init);
  } catch (e) {
    return { ok: false, status: 0, body: null, message: `the server could not be reached (${e.message})` };
  }
  const data = await resp.json().catch(() => null);
  let message = "";
  if (!resp.ok) {
    message = data && data.message ? data.message : `HTTP ${resp.status} ${resp.statusText}`.trim();
    if (data && data.code) message = `${data.code}: ${message}`;
  }
  return { ok: resp.ok, status: resp.status, body: data, message };
}

// ingestCounts tells the counts of an ingest answer: "2 accepted, 1 duplicate, 1 rejected".
export function ingestCounts(body) {
  if (!body || !Array.isArray(body.results)) return "";
  const parts = [`${body.accepted} accepted`];
  if (body.duplicates) parts.push(`${body.duplicates} unchanged (duplicate)`);
  if (body.rejected) parts.push(`${body.rejected} rejected`);
  return parts.join(", ");
}

// ingestProblems lists the events of an ingest answer that were rejected, with the server's reasons.
export function ingestProblems(body) {
  if (!body || !Array.isArray(body.results)) return [];
  return body.results.filter((r) => r.status === "rejected")
    .map((r) => `item ${r.item}${r.id ? ` (${r.id})` : ""}: ${r.code ? r.code + ": " : ""}${r.message}`);
}

// Status is the page's status region: the answer to the last action, and a list of the earlier ones.
export class Status {
  constructor(region, history) {
    this.region = region;
    this.history = history;
  }

  // show tells the outcome of an action; kind is "ok", "error" or "info". Errors say so in words too.
  show(text, kind = "ok") {
    const prefix = { ok: "Done: ", error: "Error: ", info: "" }[kind];
    this.region.className = `status ${kind}`;
    this.region.textContent = prefix + text;
    if (this.history && kind !== "info") {
      const li = document.createElement("li");
      li.className = kind;
      const time = document.createElement("time");
      const now = new Date();
      time.dateTime = now.toISOString();
      time.textContent = now.toLocaleTimeString();
      li.append(time, " ", prefix + text);
      this.history.prepend(li);
      while (this.history.children.length > 30) this.history.lastChild.remove();
      this.history.closest("details").hidden = false;
    }
  }

  // answer tells what the server said to an action: what succeeded (done), or the JSON error's message.
  answer(what, a, done) {
    if (a.ok) {
      const counts = ingestCounts(a.body);
      const problems = ingestProblems(a.body);
      if (problems.length > 0) {
        this.show(`${what}: ${counts}. ${problems.join("; ")}`, "error");
      } else {
        this.show(done || (counts ? `${what}: ${counts}.` : `${what}.`), "ok");
      }
    } else {
      this.show(`${what}: ${a.status ? `${a.status}, ` : ""}${a.message}`, "error");
    }
    return a.ok && ingestProblems(a.body).length === 0;
  }
}
