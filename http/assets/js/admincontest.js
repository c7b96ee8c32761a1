// The contest's definition in the admin console: the form that creates a contest or edits one (PATCH), the
// CCS contest and problem objects it sends (rankd's extensions for OI, IOI and CTF included), and the times
// of the forms.

import { validID } from "./admincsv.js";

const $ = (id) => document.getElementById(id);

// relPattern is a relative time as the forms take it: h:mm:ss, with milliseconds if wanted.
export const relPattern = /^\d+:[0-5]\d:[0-5]\d(\.\d{1,3})?$/;

// shortRel drops a zero fraction from a relative time the API wrote: "5:00:00.000" is "5:00:00".
export function shortRel(s) {
  return (s || "").replace(/\.0*$/, "");
}

// showRules shows the fields of root that belong to the rules given (class rules-icpc, rules-oi, ...) and
// hides those of other rules.
export function showRules(root, rules) {
  for (const el of root.querySelectorAll("[class*='rules-']")) {
    const kinds = [...el.classList].filter((c) => c.startsWith("rules-")).map((c) => c.slice("rules-".length));
    el.hidden = !kinds.includes(rules);
  }
}

const pad = (n) => String(n).padStart(2, "0");

// inputTime turns a time (ISO 8601, or a Date) into the value of a datetime-local field, in this browser's
// time zone.
export function inputTime(t) {
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return "";
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

// isoTime turns the value of a datetime-local field (this browser's time zone) into an ISO 8601 time with
// the zone's offset at that time, which rankd keeps: "2026-03-01T11:00:00+01:00". null for a bad value.
export function isoTime(value) {
  const d = new Date(value); // a date and time without an offset is local time
  if (!value || Number.isNaN(d.getTime())) return null;
  const off = -d.getTimezoneOffset();
  const abs = Math.abs(off);
  return `${inputTime(d)}${off < 0 ? "-" : "+"}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

// zoneName names this browser's time zone and its offset now: "Europe/Amsterdam, UTC+01:00".
export function zoneName() {
  const off = -new Date().getTimezoneOffset();
  const abs = Math.abs(off);
  const utc = `UTC${off < 0 ? "-" : "+"}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  const name = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return name ? `${name}, ${utc}` : utc;
}

// numbers reads a list of numbers separated by commas ("50, 30, 10"); null when one is not a number (or not
// a whole one, when whole).
export function numbers(s, whole) {
  const parts = s.split(",").map((x) => x.trim()).filter((x) => x !== "");
  const ns = parts.map(Number);
  if (ns.some((n) => !Number.isFinite(n) || n < 0 || (whole && !Number.isInteger(n)))) return null;
  return ns;
}

// Memory of what this browser sent last, for what the API does not list: organizations without teams.
export function remember(kind, cid, value) {
  try {
    localStorage.setItem(`rankd.admin.${kind}.${cid}`, JSON.stringify({ saved: new Date().toISOString(), value }));
  } catch {
    // storage off: the page knows what the API lists only
  }
}

export function recall(kind, cid) {
  try {
    return JSON.parse(localStorage.getItem(`rankd.admin.${kind}.${cid}`) || "null");
  } catch {
    return null;
  }
}

// refocus moves the keyboard to an element once a save has come back, unless the person has gone on to
// something outside where the save started: a form answered late must not take the focus from another one.
export function refocus(within, target) {
  const now = document.activeElement;
  if (!now || now === document.body || within.contains(now)) target.focus();
}

// keepFocus runs render, which fills container again, and puts the keyboard back on the new element that
// same(old) finds for the one it was on: a refresh must not throw it to the top of the page.
export function keepFocus(container, same, render) {
  const now = document.activeElement;
  const selector = now && now !== container && container.contains(now) ? same(now) : "";
  render();
  const again = selector && container.querySelector(selector);
  if (again && document.activeElement !== again) again.focus();
}

// FormError is a field that does not hold what the form needs; the page focuses the field.
export class FormError extends Error {
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}

// whole reads a field of a whole number; empty, it is none (0) unless otherwise said.
function whole(id, what, empty = 0) {
  const v = $(id).value.trim();
  if (v === "") return empty;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new FormError(id, `${what}: want a whole number, 0 or more`);
  return n;
}

// readContestForm returns the CCS contest object the contest form describes; old is the contest edited (its
// formal name is kept), or null (creating). It throws a FormError for a field that is wrong.
export function readContestForm(old) {
  const id = $("c-id").value.trim();
  if (!validID(id)) throw new FormError("c-id", "Id: 1 to 36 letters, digits, “_”, “-” and “.”, starting with a letter, a digit or “_”, not ending with “.”");
  const name = $("c-name").value.trim();
  if (name === "") throw new FormError("c-name", "Name: the contest needs one");
  const rules = $("c-rules").value;
  let start = null;
  if ($("c-start").value !== "") {
    start = isoTime($("c-start").value);
    if (start === null) throw new FormError("c-start", "Start: not a date and time");
  }
  const duration = $("c-duration").value.trim();
  if (!relPattern.test(duration)) throw new FormError("c-duration", "Duration: want h:mm:ss, such as 5:00:00");
  const freeze = $("c-freeze").value.trim() || "0:00:00";
  if (!relPattern.test(freeze)) throw new FormError("c-freeze", "Freeze duration: want h:mm:ss, such as 1:00:00, or nothing");
  const ms = (s) => {
    const [h, m, sec] = s.split(":").map(Number);
    return ((h * 60 + m) * 60 + sec) * 1000;
  };
  if (ms(freeze) > ms(duration)) throw new FormError("c-freeze", "Freeze duration: longer than the contest");
  const c = {
    id, name, start_time: start, duration, scoreboard_freeze_duration: freeze,
    scoreboard_type: rules === "icpc" ? "pass-fail" : "score",
  };
  if (old && old.formal_name && old.formal_name !== old.name) c.formal_name = old.formal_name;
  if (rules === "icpc") c.penalty_time = whole("c-penalty", "Penalty time", 20); // empty: the default, as the API's
  const ext = { rules };
  const medals = { gold: whole("c-gold", "Gold medals"), silver: whole("c-silver", "Silver medals"), bronze: whole("c-bronze", "Bronze medals") };
  if (medals.gold + medals.silver + medals.bronze > 0) ext.medals = medals;
  if (rules === "oi") ext.oi_mode = $("c-oi-mode").value;
  if (rules === "oi" || rules === "ioi") {
    if ($("c-tie-by-time").checked) ext.tie_by_time = true;
    if ($("c-hide-until-end").checked) ext.hide_until_end = true;
  }
  if (rules === "ctf") {
    const fb = numbers($("c-first-blood").value, true);
    if (fb === null) throw new FormError("c-first-blood", "First-blood bonuses: whole numbers separated by commas");
    if (fb.length > 0) ext.first_blood = fb;
  }
  c.rankd = ext;
  return c;
}

// fillContestForm sets the form to a contest: the CCS contest object GET /api/contests/{id} answers, with
// rankd's extensions (null for a new contest).
export function fillContestForm(c) {
  const e = (c && c.rankd) || {};
  $("c-id").value = c ? c.id : "";
  $("c-id").readOnly = !!c;
  $("c-name").value = c ? c.name : "";
  $("c-rules").value = e.rules || (c && c.scoreboard_type === "score" ? "oi" : "icpc");
  $("c-start").value = c && c.start_time ? inputTime(c.start_time) : "";
  $("c-duration").value = c ? shortRel(c.duration) : "5:00:00";
  const freeze = c ? shortRel(c.scoreboard_freeze_duration || "") : "1:00:00";
  $("c-freeze").value = freeze === "0:00:00" ? "" : freeze;
  $("c-penalty").value = String(c && c.penalty_time !== undefined ? c.penalty_time : 20);
  const medals = e.medals || {};
  $("c-gold").value = String(medals.gold || 0);
  $("c-silver").value = String(medals.silver || 0);
  $("c-bronze").value = String(medals.bronze || 0);
  $("c-oi-mode").value = e.oi_mode || "best";
  $("c-tie-by-time").checked = !!e.tie_by_time;
  $("c-hide-until-end").checked = !!e.hide_until_end;
  $("c-first-blood").value = (e.first_blood || []).join(", ");
  showRules($("contest-form"), $("c-rules").value);
}

// readProblemForm returns the CCS problem object the problem form describes, for a contest of the rules
// given. It throws a FormError for a field that is wrong.
export function readProblemForm(rules) {
  const id = $("p-id").value.trim();
  if (!validID(id)) throw new FormError("p-id", "Id: 1 to 36 letters, digits, “_”, “-” and “.”, starting with a letter, a digit or “_”, not ending with “.”");
  const label = $("p-label").value.trim();
  if (label === "") throw new FormError("p-label", "Label: the problem needs one, such as A");
  const ordinal = Number($("p-ordinal").value || "0");
  if (!Number.isInteger(ordinal)) throw new FormError("p-ordinal", "Order: want a whole number");
  const p = { id, label, name: $("p-name").value.trim() || label, ordinal };
  if (!$("p-no-colour").checked) {
    p.rgb = $("p-rgb").value;
    if ($("p-color").value.trim()) p.color = $("p-color").value.trim();
  }
  if (rules === "oi" || rules === "ioi") {
    const v = $("p-max-score").value.trim();
    if (v !== "") {
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0) throw new FormError("p-max-score", "Maximum score: want a number, 0 or more");
      p.max_score = n;
    }
  }
  const ext = {};
  if (rules === "ioi") {
    const st = numbers($("p-subtasks").value, false);
    if (st === null) throw new FormError("p-subtasks", "Subtask maximums: numbers separated by commas");
    if (st.length > 0) ext.subtasks = st;
  }
  if (rules === "ctf") {
    ext.value = whole("p-value", "Value");
    ext.function = $("p-function").value;
    if (ext.function !== "static") {
      ext.minimum = whole("p-minimum", "Minimum");
      ext.decay = whole("p-decay", "Decay");
      if (ext.decay === 0 && ext.function !== "defcon") throw new FormError("p-decay", "Decay: a value that follows the solves needs one above 0");
    }
  }
  if (Object.keys(ext).length > 0) p.rankd = ext;
  // Kept from the problem edited, which the form does not show: a POST replaces the whole problem.
  const tests = Number($("p-id").dataset.tests || "0");
  if ($("p-id").readOnly && tests > 0) p.test_data_count = tests;
  return p;
}

// fillProblemForm sets the problem form to a problem, the CCS object GET /api/contests/{id}/problems lists
// with rankd's extensions, or clears it for a new one with the next order.
export function fillProblemForm(p, next) {
  const ext = (p && p.rankd) || {};
  $("p-id").value = p ? p.id : "";
  $("p-id").readOnly = !!p;
  $("p-id").dataset.tests = String((p && p.test_data_count) || 0);
  $("p-label").value = p ? p.label : "";
  $("p-name").value = p ? p.name : "";
  $("p-ordinal").value = String(p ? p.ordinal : next);
  $("p-no-colour").checked = !!p && !p.rgb;
  $("p-rgb").value = p && /^#[0-9a-f]{6}$/i.test(p.rgb || "") ? p.rgb.toLowerCase() : "#1e90ff";
  $("p-color").value = (p && p.color) || "";
  $("p-max-score").value = p && p.max_score ? String(p.max_score) : "";
  $("p-subtasks").value = (ext.subtasks || []).join(", ");
  $("p-value").value = String(ext.value ?? (p ? 0 : 500));
  $("p-function").value = ext.function || "static";
  $("p-minimum").value = String(ext.minimum || 0);
  $("p-decay").value = String(ext.decay || 0);
}
