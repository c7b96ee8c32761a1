// Contests as the API describes them, and the requests the pages make.

// api fetches a JSON resource of the API; it throws an Error with the server's message and status.
export async function api(path, token) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = "Bearer " + token;
  const resp = await fetch(path, { headers, cache: "no-store" });
  const body = await resp.json().catch(() => null);
  if (!resp.ok) {
    const e = new Error(body && body.message ? body.message : `HTTP ${resp.status}`);
    e.status = resp.status;
    throw e;
  }
  return body;
}

// relMillis parses a contest-relative time such as "5:00:00" or "-0:30:00.500" into milliseconds.
export function relMillis(s) {
  const m = /^(-)?(\d+):(\d\d):(\d\d)(?:\.(\d{1,3}))?$/.exec(s || "");
  if (!m) return 0;
  const ms = ((Number(m[2]) * 60 + Number(m[3])) * 60 + Number(m[4])) * 1000 + Number((m[5] || "0").padEnd(3, "0"));
  return m[1] ? -ms : ms;
}

// freezeAt returns when the public board freezes (a Date), or null for a contest without a freeze.
export function freezeAt(c) {
  const freeze = relMillis(c.scoreboard_freeze_duration);
  if (!c.start_time || freeze <= 0) return null;
  return new Date(Date.parse(c.start_time) + relMillis(c.duration) - freeze);
}

// nextPhaseAt returns when the contest's phase changes next by its schedule (its start, its freeze, its end),
// or null when no change is scheduled.
export function nextPhaseAt(c, now = Date.now()) {
  if (!c.start_time) return null;
  const start = Date.parse(c.start_time);
  const times = [start, freezeAt(c)?.getTime(), start + relMillis(c.duration)];
  const next = times.filter((t) => t !== undefined && t > now).sort((a, b) => a - b)[0];
  return next === undefined ? null : new Date(next);
}

// contestTime formats a duration as h:mm:ss.
export function contestTime(ms) {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 3600)}:${String(Math.floor(s / 60) % 60).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}

export function localTime(d) {
  return d.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}

export const phaseNames = {
  scheduled: "Scheduled",
  running: "Running",
  frozen: "Frozen",
  ended: "Ended",
  thawed: "Thawed",
  finalized: "Final",
};
