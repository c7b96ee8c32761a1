// Judgements by hand in the admin console: pick a submission (the jury's list of submissions), give it a
// verdict, and post it as a new judgement through /judgements, which takes the admin token as it takes a
// judge's. The judgement that started last counts, so the new one starts now, by the server's clock.

import { call } from "./adminapi.js";
import { FormError, numbers, relPattern } from "./admincontest.js";
import { validID } from "./admincsv.js";
import { contestTime } from "./contest.js";

const $ = (id) => document.getElementById(id);
const pageSize = 200;

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  e.append(...children);
  return e;
}

// setUpJudgements wires the section to the page's context (see adminteams.js).
export function setUpJudgements(ctx) {
  let offset = 0;
  let shown = [];
  // load shows a page of submissions; quiet leaves the status region to the action that asked for it.
  const load = async (at, quiet = false) => {
    offset = Math.max(0, at);
    const q = new URLSearchParams({ view: "jury", offset: String(offset), limit: String(pageSize) });
    if ($("s-team").value) q.set("team", $("s-team").value);
    if ($("s-problem").value) q.set("problem", $("s-problem").value);
    const a = await call("GET", `${ctx.base}/submissions?${q}`);
    if (!a.ok) {
      ctx.status.answer("Read the submissions", a);
      return;
    }
    shown = a.body;
    renderSubmissions(ctx, shown);
    $("sub-pages").hidden = offset === 0 && shown.length < pageSize;
    $("s-prev").disabled = offset === 0;
    $("s-next").disabled = shown.length < pageSize;
    $("s-range").textContent = shown.length ? `Submissions ${offset + 1}–${offset + shown.length}` : "No submissions here.";
    if (!quiet) ctx.status.show(`${shown.length === 0 && offset === 0 ? "No" : shown.length} submission${shown.length === 1 ? "" : "s"} listed.`, "info");
  };
  $("sub-filter").addEventListener("submit", (e) => {
    e.preventDefault();
    load(0);
  });
  $("s-prev").addEventListener("click", () => load(offset - pageSize));
  $("s-next").addEventListener("click", () => load(offset + pageSize));
  $("sub-list").tBodies[0].addEventListener("change", (e) => {
    const sub = shown.find((s) => s.id === e.target.value);
    if (sub) pick(ctx, sub);
  });
  $("j-type").addEventListener("change", () => {
    $("j-other-label").hidden = $("j-type").value !== "";
  });
  $("judgement-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    await postJudgement(ctx, shown);
    if (!$("sub-list").hidden) await load(offset, true);
  });
}

// fillJudgementTypes offers the contest's judgement types as verdicts (GET /api/contests/{id}/judgement-types),
// and any other id, keeping what is chosen.
export function fillJudgementTypes(types) {
  const sel = $("j-type");
  const v = sel.value;
  sel.replaceChildren(...types.map((t) => new Option(`${t.id} — ${t.name}${t.solved ? " (solved)" : ""}`, t.id)),
    new Option("Another id…", ""));
  sel.value = types.some((t) => t.id === v) ? v : types.length ? types[0].id : "";
  $("j-other-label").hidden = sel.value !== "";
}

// fillSubmissionFilters offers the contest's teams and problems as filters, keeping what is chosen.
export function fillSubmissionFilters(ctx) {
  const keep = (sel, options) => {
    const v = sel.value;
    sel.replaceChildren(...options);
    sel.value = v;
  };
  keep($("s-team"), [new Option("Every team", ""), ...ctx.teams.map((t) => new Option(`${t.name || t.id} (${t.id})`, t.id))]);
  keep($("s-problem"), [new Option("Every problem", ""), ...(ctx.contest.problems || []).slice()
    .sort((a, b) => a.ordinal - b.ordinal).map((p) => new Option(`${p.label}: ${p.name || p.id}`, p.id))]);
}

function renderSubmissions(ctx, subs) {
  const teams = new Map(ctx.teams.map((t) => [t.id, t.name || t.id]));
  const problems = new Map((ctx.contest.problems || []).map((p) => [p.id, p.label]));
  $("sub-list").tBodies[0].replaceChildren(...subs.map((s) => {
    const radio = el("input", { type: "radio", name: "pick", value: s.id, checked: $("j-sub").value === s.id });
    radio.setAttribute("aria-label", `Pick submission ${s.id}`);
    const verdict = s.judgement_type_id === null ? "pending" : s.judgement_type_id + (s.score ? ` (${s.score})` : "");
    const tr = el("tr", {},
      el("td", {}, radio),
      el("th", { scope: "row" }, el("code", { textContent: s.id })),
      el("td", { textContent: s.contest_time.replace(/\.0*$/, "") }),
      el("td", { textContent: teams.get(s.team_id) || s.team_id }),
      el("td", { textContent: problems.get(s.problem_id) || s.problem_id }),
      el("td", { textContent: verdict }));
    tr.dataset.submission = s.id;
    return tr;
  }));
  $("sub-list").hidden = false;
}

// serverContestTime returns now by the server's clock as a contest time (h:mm:ss.mmm), or "" when the
// contest has no start: the CCS scoreboard carries the server's time.
async function serverContestTime(ctx) {
  if (!ctx.contest.start_time) return "";
  const a = await call("GET", `/api/contests/${encodeURIComponent(ctx.cid)}/scoreboard`, undefined, { token: false });
  if (!a.ok || !a.body || !a.body.time) return "";
  const ms = Date.parse(a.body.time) - Date.parse(ctx.contest.start_time);
  if (!Number.isFinite(ms)) return "";
  return `${ms < 0 ? "-" : ""}${contestTime(Math.abs(ms))}.${String(Math.abs(ms) % 1000).padStart(3, "0")}`;
}

async function pick(ctx, sub) {
  $("j-sub").value = sub.id;
  $("j-id").value = newJudgementID(sub.id);
  const now = await serverContestTime(ctx);
  // Without a start (or the server's time), the submission's own time is the best guess; it may be changed.
  $("j-time").value = now || sub.contest_time;
  ctx.status.show(`Picked submission ${sub.id} (${sub.judgement_type_id === null ? "pending" : sub.judgement_type_id}).`, "info");
}

async function postJudgement(ctx, shown) {
  // A submission typed rather than picked gets its id and time here.
  if ($("j-sub").value.trim() !== "") {
    if ($("j-id").value.trim() === "") $("j-id").value = newJudgementID($("j-sub").value.trim());
    if ($("j-time").value.trim() === "") $("j-time").value = await serverContestTime(ctx);
  }
  let j;
  try {
    j = readJudgementForm(ctx.contest.rules);
  } catch (e) {
    if (!(e instanceof FormError)) throw e;
    ctx.status.show(e.message, "error");
    $(e.field).focus();
    return;
  }
  const a = await call("POST", `${ctx.base}/judgements`, j);
  if (!ctx.status.answer(`Judgement ${j.id} (${j.judgement_type_id}) of submission ${j.submission_id}`, a)) return;
  // The server took it; whether it counts depends on the judgements it has: check what the jury sees now.
  const sub = shown.find((s) => s.id === j.submission_id);
  const q = new URLSearchParams({ view: "jury", limit: "1000" });
  if (sub) {
    q.set("team", sub.team_id);
    q.set("problem", sub.problem_id);
  }
  const check = await call("GET", `${ctx.base}/submissions?${q}`);
  const now = check.ok ? check.body.find((s) => s.id === j.submission_id) : null;
  if (!now) {
    ctx.status.show(`Judgement ${j.id} of submission ${j.submission_id} is stored (${a.body.accepted ? "new" : "unchanged"}).`);
  } else if (now.judgement_type_id === j.judgement_type_id) {
    ctx.status.show(`Judgement ${j.id}: submission ${j.submission_id} is now ${j.judgement_type_id}${a.body.duplicates ? " (it was already)" : ""}.`);
  } else {
    ctx.status.show(`Judgement ${j.id} is stored, but submission ${j.submission_id} is still ${now.judgement_type_id ?? "pending"}: ` +
      "a judgement that started later counts. Post again with a later start time.", "error");
  }
  // Ready for another correction, which needs an id of its own.
  $("j-id").value = newJudgementID(j.submission_id);
}

// newJudgementID makes a judgement id that no judge system uses: the submission's, "-fix-" and the time.
function newJudgementID(sub) {
  const suffix = `-fix-${Date.now().toString(36)}`;
  return (sub.slice(0, 36 - suffix.length) + suffix).replace(/^\./, "x");
}

function readJudgementForm(rules) {
  const sub = $("j-sub").value.trim();
  if (sub === "") throw new FormError("j-sub", "Submission: pick one in the list, or type its id");
  const type = $("j-type").value || $("j-other").value.trim();
  if (type === "") throw new FormError($("j-type").value ? "j-type" : "j-other", "Verdict: choose one, or give a judgement type id");
  const id = $("j-id").value.trim();
  if (!validID(id)) throw new FormError("j-id", "Judgement id: a new id, with letters, digits, “_”, “.” and “-”");
  const start = $("j-time").value.trim();
  if (!relPattern.test(start.replace(/^-/, ""))) throw new FormError("j-time", "Started at: a contest time such as 4:30:00");
  const j = { id, submission_id: sub, judgement_type_id: type, start_contest_time: start };
  if (rules === "oi" || rules === "ioi") {
    const subtasks = rules === "ioi" ? numbers($("j-subtasks").value, false) : [];
    if (subtasks === null) throw new FormError("j-subtasks", "Subtask scores: numbers separated by commas");
    const s = $("j-score").value.trim();
    if (s !== "") {
      const n = Number(s);
      if (!Number.isFinite(n) || n < 0) throw new FormError("j-score", "Score: a number, 0 or more");
      j.score = n;
    } else if (subtasks.length > 0) {
      j.score = subtasks.reduce((x, y) => x + y, 0);
    } else {
      throw new FormError("j-score", "Score: an OI or IOI judgement carries the submission's score");
    }
    if (subtasks.length > 0) j.rankd = { subtask_scores: subtasks };
  }
  return j;
}
