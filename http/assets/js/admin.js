// The admin console: /admin lists the contests and creates one; /admin/contests/{id} manages one — its
// definition, problems, groups, organizations and teams (by hand or from a CSV file), bans, hiding, team
// tokens, the freeze, judgements by hand, the finalization, downloads of the standings, and deletion.
// Everything goes through the JSON API with the admin token, which the page asks for and keeps in this
// browser; each answer is told in the status region.

import { adminToken, call, download, forgetAdminToken, hasAdminToken, Status } from "./adminapi.js";
import { api, contestTime, freezeAt, localTime, phaseNames, relMillis } from "./contest.js";
import {
  fillContestForm, fillProblemForm, FormError, keepFocus, readContestForm, readProblemForm, recall, refocus, remember, showRules,
  zoneName,
} from "./admincontest.js";
import { validID } from "./admincsv.js";
import { fillTeamChoices, renderTeams, setUpTeams } from "./adminteams.js";
import { fillJudgementTypes, fillSubmissionFilters, setUpJudgements } from "./adminjudge.js";

const $ = (id) => document.getElementById(id);
const path = location.pathname.split("/"); // "", "admin", "contests", id
const cid = path[2] === "contests" ? decodeURIComponent(path[3] || "") : "";
const flashKey = "rankd.admin.flash";
const refreshEvery = 30000;

const status = new Status($("status"), $("history"));

// ctx is what the sections share: the contest as the API describes it, its definition as the forms edit
// it (the CCS contest and problem objects, rankd's extensions included), its teams as the jury sees them,
// its organizations, the status region, reload(what) to read "contest", "teams" or "all" again, and
// confirm(title, text, yes) to ask before an action.
const ctx = {
  cid,
  base: `/api/v1/contests/${encodeURIComponent(cid)}`,
  ccs: `/api/contests/${encodeURIComponent(cid)}`,
  contest: null,
  definition: null,
  teams: [],
  organizations: [],
  status,
  reload,
  confirm: confirmAction,
};
window.rankdAdmin = ctx; // for the curious, and for the browser tests

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  e.append(...children.filter((c) => c !== null && c !== undefined));
  return e;
}

function show(...ids) {
  for (const id of ids) $(id).hidden = false;
}

// reportFormError tells what is wrong with a form's field and puts the keyboard on it.
function reportFormError(e) {
  if (!(e instanceof FormError)) throw e;
  status.show(e.message, "error");
  $(e.field).focus();
}

async function main() {
  $("c-zone").textContent = zoneName();
  $("forget").addEventListener("click", () => {
    forgetAdminToken();
    status.show("The admin token is forgotten in this browser; the next action asks for one.", "info");
  });
  $("set-token").addEventListener("click", async () => {
    if (await adminToken("", true)) {
      status.show("The admin token is kept in this browser.", "info");
      if (ctx.contest) await reload("all");
    }
  });
  $("c-rules").addEventListener("change", () => showRules($("contest-form"), $("c-rules").value));
  $("contest-form").addEventListener("submit", (e) => {
    e.preventDefault();
    saveContest();
  });
  const flash = sessionStorage.getItem(flashKey);
  if (flash) {
    sessionStorage.removeItem(flashKey);
    status.show(flash);
  }
  if (cid) {
    await contestPage();
  } else {
    await homePage();
  }
}

// The home page: the contests, and the form that creates one.
async function homePage() {
  show("home", "contest");
  fillContestForm(null);
  listContests();
  await adminToken();
}

async function listContests() {
  let contests;
  try {
    contests = await api("/api/v1/contests");
  } catch (e) {
    $("contests-message").textContent = `The contests could not be read: ${e.message}. Retrying…`;
    setTimeout(listContests, 5000);
    return;
  }
  if (contests.length === 0) {
    $("contests-message").textContent = "There are no contests yet: create one below.";
    return;
  }
  $("contests-message").hidden = true;
  $("contests").hidden = false;
  $("contests").tBodies[0].replaceChildren(...contests.map((c) => {
    const phase = el("span", { className: `phase ${c.phase}`, textContent: phaseNames[c.phase] || c.phase });
    return el("tr", {},
      el("th", { scope: "row" }, el("a", { href: `/admin/contests/${encodeURIComponent(c.id)}`, textContent: c.name || c.id })),
      el("td", {}, el("code", { textContent: c.id })),
      el("td", {}, phase),
      el("td", { textContent: c.rules.toUpperCase() }),
      el("td", { textContent: c.start_time ? localTime(new Date(c.start_time)) : "not set" }),
      el("td", { textContent: String(c.teams) }),
      el("td", {}, el("a", { href: `/contests/${encodeURIComponent(c.id)}`, textContent: "Board" })));
  }));
}

// The page of one contest.
async function contestPage() {
  try {
    ctx.contest = await api(ctx.base);
  } catch (e) {
    const m = $("message");
    m.replaceChildren(e.status === 404 ? `There is no contest “${cid}” on this server. ` : `The contest could not be read (${e.message}). `,
      el("a", { href: "/admin", textContent: "See the contests." }));
    m.hidden = false;
    if (e.status !== 404) setTimeout(() => location.reload(), 5000);
    return;
  }
  show("sections", "contest", "problems", "groups", "teams", "import", "freeze", "judgements", "results", "delete", "link-board", "link-jury", "link-screen");
  $("link-board").href = `/contests/${encodeURIComponent(cid)}`;
  $("link-jury").href = `/contests/${encodeURIComponent(cid)}?view=jury`;
  $("link-screen").href = `/contests/${encodeURIComponent(cid)}?bigscreen=1&jury=1`;
  $("contest-title").textContent = "Contest";
  $("contest-help").textContent = "Saving replaces the contest's definition (PATCH); its problems, teams and submissions stay.";
  $("c-save").textContent = "Save the contest";
  await loadDefinition();
  if (ctx.definition) fillContestForm(ctx.definition.contest);
  setUpProblems();
  setUpGroups();
  setUpFreeze();
  setUpResults();
  setUpDelete();
  setUpTeams(ctx);
  setUpJudgements(ctx);
  renderContest();
  fillProblemForm(null, nextOrdinal());
  await adminToken();
  await reload("all");
  setInterval(() => reload("contest"), refreshEvery);
}

// reload reads the contest ("contest"), its teams and organizations ("teams"), or both ("all") again and
// shows them.
async function reload(what) {
  if (what === "contest" || what === "all") {
    // Read as the jury: the public contest leaves out the hidden groups, and a team edited without them
    // would lose its hidden group and show on the public board.
    const a = await call("GET", ctx.base, undefined, { token: hasAdminToken() });
    if (!a.ok) {
      status.show(`The contest could not be read again: ${a.message}`, "error");
      return;
    }
    ctx.contest = a.body;
    renderContest();
  }
  if (what === "teams" || what === "all") {
    // The jury's list of teams needs the token; without one (the question cancelled) it waits for the
    // first action, which asks again.
    const [teams, orgs] = await Promise.all([
      hasAdminToken() ? call("GET", `${ctx.base}/teams?view=jury`) : { ok: false, status: 0, message: "", noToken: true },
      // As the jury: the public's leave out organizations whose teams are all off the public board.
      hasAdminToken() ? call("GET", `/api/contests/${encodeURIComponent(cid)}/organizations?view=jury`)
        : call("GET", `/api/contests/${encodeURIComponent(cid)}/organizations`, undefined, { token: false }),
    ]);
    if (teams.ok) {
      ctx.teams = teams.body;
    } else if (teams.noToken) {
      status.show("The teams are listed once the admin token is given: “Admin token…” (or any action) asks for it.", "info");
    } else {
      status.answer("Read the teams", teams);
    }
    // The API lists the organizations that have teams; those added from this browser are known too.
    const listed = orgs.ok ? orgs.body : [];
    const added = (recall("organizations", cid) || { value: [] }).value.filter((o) => !listed.some((l) => l.id === o.id));
    ctx.organizations = [...listed, ...added];
  }
  renderTeams(ctx);
  fillTeamChoices(ctx);
  fillSubmissionFilters(ctx);
  renderOrganizations();
}

// renderContest shows what follows the contest's definition: the header, the problems, the groups, the
// freeze, and the fields of its rules.
function renderContest() {
  const c = ctx.contest;
  document.title = `Admin · ${c.name} · rankd`;
  $("title").textContent = `Admin · ${c.name}`;
  $("phase").textContent = phaseNames[c.phase] || c.phase;
  $("phase").className = `phase ${c.phase}`;
  $("phase").hidden = false;
  for (const id of ["problems", "judgements", "results"]) showRules($(id), c.rules);
  renderProblems();
  renderGroups();
  renderFreeze();
  renderUpdates();
}

// loadDefinition reads what the forms edit: the CCS contest and problem objects, which carry every setting
// (medals, OI mode, CTF values, subtasks), and the contest's judgement types for the verdicts offered.
async function loadDefinition() {
  const [c, ps, jts] = await Promise.all([
    call("GET", ctx.ccs, undefined, { token: false }),
    call("GET", `${ctx.ccs}/problems`, undefined, { token: false }),
    call("GET", `${ctx.ccs}/judgement-types`, undefined, { token: false }),
  ]);
  for (const [what, a] of [["the contest", c], ["its problems", ps], ["its judgement types", jts]]) {
    if (!a.ok) {
      status.answer(`Read ${what}`, a);
      return;
    }
  }
  ctx.definition = { contest: c.body, problems: new Map(ps.body.map((p) => [p.id, p])) };
  fillJudgementTypes(jts.body);
}

async function saveContest() {
  let c;
  try {
    c = readContestForm(ctx.contest);
  } catch (e) {
    reportFormError(e);
    return;
  }
  if (!ctx.contest) {
    const a = await call("POST", "/api/v1/contests", { contest: c });
    if (status.answer(`Create contest ${c.id}`, a, `Created contest ${c.name} (${c.id}).`)) {
      sessionStorage.setItem(flashKey, `Created contest ${c.name} (${c.id}): add its problems, groups and teams here.`);
      location.assign(`/admin/contests/${encodeURIComponent(c.id)}`);
    }
    return;
  }
  if (!ctx.definition) {
    // The form did not start from the server's definition: saving would replace settings it does not show.
    status.show("The contest's definition could not be read, so it is not saved: reload the page.", "error");
    return;
  }
  // What a stray edit of a contest under way would do to every board is asked first.
  if (["running", "frozen"].includes(ctx.contest.phase)) {
    if (!c.start_time && ctx.contest.start_time && !await confirmAction("Take back the start?",
      "The contest is under way: without a start time the boards lose its clock and its freeze, and it counts as not scheduled.", "Save without a start")) {
      status.show("The contest is not saved: cancelled.", "info");
      return;
    }
    if ($("c-rules").value !== ctx.contest.rules && !await confirmAction(`Change the rules to ${$("c-rules").selectedOptions[0].textContent}?`,
      "The contest is under way: every team is ranked anew by the new rules, on every board, at once.", "Change the rules")) {
      status.show("The contest is not saved: cancelled.", "info");
      return;
    }
  }
  const a = await call("PATCH", ctx.base, { contest: c });
  if (status.answer(`Save contest ${c.id}`, a, `Saved contest ${c.name} (${c.id}).`)) await reloadDefinition();
}

// reloadDefinition reads the contest again, and its definition into the form: after a save, and after a
// freeze or a thaw, which change the freeze (a form left as it was would undo the thaw at its next save).
async function reloadDefinition() {
  await reload("contest");
  await loadDefinition();
  if (ctx.definition) fillContestForm(ctx.definition.contest);
}

function sortedProblems() {
  return (ctx.contest.problems || []).slice().sort((a, b) => a.ordinal - b.ordinal);
}

function nextOrdinal() {
  const ps = ctx.contest.problems || [];
  return ps.length ? Math.max(...ps.map((p) => p.ordinal)) + 1 : 0;
}

function setUpProblems() {
  $("problem-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    let p;
    try {
      p = readProblemForm(ctx.contest.rules);
    } catch (err) {
      reportFormError(err);
      return;
    }
    const a = await call("POST", `${ctx.base}/problems`, p);
    if (status.answer(`Save problem ${p.label} (${p.id})`, a, `Saved problem ${p.label}: ${p.name} (${p.id}).`)) {
      await reload("contest");
      await loadDefinition();
      fillProblemForm(null, nextOrdinal());
      problemFormFor(null);
      refocus($("problem-form"), $("p-id"));
    }
  });
  $("problem-form").addEventListener("reset", () => setTimeout(() => {
    fillProblemForm(null, nextOrdinal());
    problemFormFor(null);
  }));
  $("problem-list").tBodies[0].addEventListener("click", (e) => {
    const b = e.target.closest("button[data-problem]");
    if (!b) return;
    const p = ctx.definition && ctx.definition.problems.get(b.dataset.problem);
    if (!p) return;
    fillProblemForm(p, 0);
    problemFormFor(p);
    $("p-label").focus();
  });
}

// problemFormFor titles the problem form for a problem edited (null: a new one).
function problemFormFor(p) {
  $("problem-form-title").textContent = p ? `Edit problem ${p.label} (${p.id})` : "Add a problem";
}

function renderProblems() {
  const ps = sortedProblems();
  $("problems-empty").hidden = ps.length > 0;
  $("problem-list").hidden = ps.length === 0;
  const body = $("problem-list").tBodies[0];
  const same = (b) => b.dataset.problem ? `button[data-problem="${CSS.escape(b.dataset.problem)}"]` : "";
  keepFocus(body, same, () => body.replaceChildren(...ps.map((p) => {
    const swatch = el("span", { className: "swatch" });
    if (p.rgb) swatch.style.background = p.rgb;
    const edit = el("button", { type: "button", textContent: "Edit" });
    edit.dataset.problem = p.id;
    edit.setAttribute("aria-label", `Edit problem ${p.label}`);
    const value = el("td", { className: "rules-ctf", textContent: String(p.value || 0) });
    return el("tr", {},
      el("th", { scope: "row", textContent: p.label }),
      el("td", {}, el("code", { textContent: p.id })),
      el("td", { textContent: p.name }),
      el("td", { textContent: String(p.ordinal) }),
      el("td", {}, p.rgb ? swatch : null, ` ${p.color || p.rgb || "none"}`),
      value,
      el("td", {}, edit));
  })));
  showRules($("problem-list"), ctx.contest.rules);
}

// groupOf returns the contest's group with this id, if any.
function groupOf(id) {
  return (ctx.contest.groups || []).find((g) => g.id === id);
}

function setUpGroups() {
  // The id of a group there is fills the form with it: a group is changed from what it is (its teams stay
  // off the public board unless "Hidden" is unticked on purpose).
  $("g-id").addEventListener("change", () => {
    const g = groupOf($("g-id").value.trim());
    if (g) {
      $("g-name").value = g.name || "";
      $("g-hidden").checked = !!g.hidden;
    }
    $("g-save").textContent = g ? "Save the group" : "Add the group";
  });
  $("group-form").addEventListener("reset", () => { $("g-save").textContent = "Add the group"; });
  $("group-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const g = { id: $("g-id").value.trim(), name: $("g-name").value.trim() };
    if (!validID(g.id)) return reportFormError(new FormError("g-id", "Group id: 1 to 36 letters, digits, “_”, “-” and “.”, starting with a letter, a digit or “_”, not ending with “.”"));
    if (!g.name) return reportFormError(new FormError("g-name", "Group name: the group needs one"));
    if ($("g-hidden").checked) g.hidden = true;
    const was = groupOf(g.id);
    if (was && was.hidden && !g.hidden && !await confirmAction(`Show group ${was.name || was.id}?`,
      "The group is hidden: saved without “Hidden”, its teams go on the public board, with their results.", "Show the group")) {
      status.show("The group is unchanged: cancelled.", "info");
      return;
    }
    const a = await call("POST", `${ctx.base}/groups`, g);
    if (status.answer(`Add group ${g.name} (${g.id})`, a, `Saved group ${g.name} (${g.id}).`)) {
      $("group-form").reset();
      await reload("all");
      refocus($("group-form"), $("g-id"));
    }
  });
  $("org-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const o = { id: $("o-id").value.trim(), name: $("o-name").value.trim() };
    if (!validID(o.id)) return reportFormError(new FormError("o-id", "Organization id: 1 to 36 letters, digits, “_”, “-” and “.”, starting with a letter, a digit or “_”, not ending with “.”"));
    if (!o.name) return reportFormError(new FormError("o-name", "Organization name: the organization needs one"));
    if ($("o-formal").value.trim()) o.formal_name = $("o-formal").value.trim();
    const country = $("o-country").value.trim().toUpperCase();
    if (country && !/^[A-Z]{3}$/.test(country)) return reportFormError(new FormError("o-country", "Country: three letters (ISO 3166-1 alpha-3), such as NLD"));
    if (country) o.country = country;
    const a = await call("POST", `${ctx.base}/organizations`, o);
    if (status.answer(`Add organization ${o.name} (${o.id})`, a, `Saved organization ${o.name} (${o.id}).`)) {
      const added = (recall("organizations", cid) || { value: [] }).value.filter((x) => x.id !== o.id);
      remember("organizations", cid, [...added, o]);
      $("org-form").reset();
      await reload("teams");
      refocus($("org-form"), $("o-id"));
    }
  });
}

function renderGroups() {
  const gs = ctx.contest.groups || [];
  $("group-list").replaceChildren(...(gs.length ? gs.map((g) => el("li", { textContent: `${g.name || g.id} (${g.id})${g.hidden ? ", hidden" : ""}` }))
    : [el("li", { className: "none", textContent: "No groups yet." })]));
}

function renderOrganizations() {
  const os = ctx.organizations;
  $("org-list").replaceChildren(...(os.length ? os.map((o) => el("li", { textContent: `${o.name || o.id} (${o.id})${o.country ? ", " + o.country : ""}` }))
    : [el("li", { className: "none", textContent: "No organizations known yet." })]));
}

// confirmAction asks before an action that changes what the public sees, or that cannot be undone; it
// resolves with the answer.
function confirmAction(title, text, yes) {
  const d = $("confirm-dialog");
  $("confirm-title").textContent = title;
  $("confirm-text").textContent = text;
  $("confirm-yes").textContent = yes;
  d.returnValue = "";
  return new Promise((resolve) => {
    d.onclose = () => resolve(d.returnValue === "yes");
    d.showModal();
    $("confirm-no").focus();
  });
}

function setUpFreeze() {
  $("freeze-now").addEventListener("click", async () => {
    if (!await confirmAction("Freeze the public board now?",
      "From now on the public sees new submissions as pending, until a thaw. The jury's board stays live.", "Freeze now")) {
      status.show("The board is not frozen: cancelled.", "info");
      return;
    }
    const a = await call("POST", `${ctx.base}/freeze`);
    const at = a.ok && a.body && a.body.frozen_at ? `, ${a.body.frozen_at.replace(/\.0*$/, "")} into the contest` : "";
    status.answer("Freeze", a, `Froze the public board${at}.`);
    await reloadDefinition();
  });
  $("thaw-now").addEventListener("click", async () => {
    const ended = ["ended", "thawed", "finalized"].includes(ctx.contest.phase);
    if (!await confirmAction(ended ? "Thaw: show the final board?" : "Lift the freeze?",
      ended ? "The public sees every verdict at once, those a reveal under way has not shown yet too: the final board. A thaw cannot be taken back."
        : "The public board shows every verdict at once, and stays live.",
      ended ? "Show the final board" : "Lift the freeze")) {
      status.show("Nothing thawed: cancelled.", "info");
      return;
    }
    const a = await call("POST", `${ctx.base}/thaw`);
    status.answer("Thaw", a, ended ? "Thawed: the public sees the final board." : "Lifted the freeze: the public board is live.");
    await reloadDefinition();
  });
}

// finalStates say where a finalization is, as GET .../finalize names it.
const finalStates = {
  idle: "not asked for yet (the contest has not ended, or ended before this server scheduled it)",
  queued: "queued", building: "being built", done: "done", failed: "failed; it is tried again", dead: "failed for good",
};

// setUpResults offers the finalization of the contest and downloads of its standings.
function setUpResults() {
  $("final-link").href = `${ctx.base}/final`;
  $("final-now").addEventListener("click", async () => {
    const a = await call("POST", `${ctx.base}/finalize`);
    status.answer("Finalization", a, "The finalization is asked for.");
    renderFinal(a.ok ? a.body : null);
  });
  $("final-retry").addEventListener("click", async () => {
    const a = await call("POST", `${ctx.base}/finalize/retry`);
    status.answer("Finalization", a, "The failed finalization runs again.");
    renderFinal(a.ok ? a.body : null);
  });
  $("eou-close").addEventListener("click", () => setEndOfUpdates(true));
  $("eou-reopen").addEventListener("click", () => setEndOfUpdates(false));
  for (const b of $("results").querySelectorAll("button[data-format]")) {
    b.addEventListener("click", async () => {
      const view = $("x-view").value;
      const a = await download(`${ctx.base}/export?format=${b.dataset.format}&view=${view}`);
      status.answer("Download", a, `Downloaded ${a.name}.`);
    });
  }
  renderFinal(null);
}

// renderUpdates says whether the event feed says no more updates come, and offers to say it (once the contest
// ended) or take it back.
async function renderUpdates() {
  const a = await call("GET", `${ctx.ccs}/state`, undefined, { token: false });
  if (!a.ok) {
    $("eou-info").textContent = `The contest's state could not be read: ${a.message}.`;
    return;
  }
  const st = a.body;
  const ended = ["ended", "thawed", "finalized"].includes(ctx.contest.phase);
  $("eou-info").textContent = st.end_of_updates ? `The feed says no more updates come, since ${localTime(new Date(st.end_of_updates))}.`
    : ended ? "The contest has ended; its feed stays open for more updates." : "The updates can be ended once the contest has ended.";
  $("eou-close").hidden = !!st.end_of_updates;
  $("eou-close").disabled = !ended;
  $("eou-reopen").hidden = !st.end_of_updates;
}

// setEndOfUpdates posts the contest's state with end_of_updates (and finalized, when it is not) set to now, or
// with end_of_updates taken back, as a contest system does: a state replaces the whole state, so it is read first.
async function setEndOfUpdates(end) {
  const ok = await confirmAction(end ? "End the updates?" : "Reopen the updates?",
    end ? "The state says the results are final and no more updates come: tools following the event feed stop there. Events sent later are still taken, but such tools miss them."
      : "The state no longer says that no more updates come: tools following the event feed wait for more again.",
    end ? "End the updates" : "Reopen");
  if (!ok) {
    status.show("The state is as it was: cancelled.", "info");
    return;
  }
  const got = await call("GET", `${ctx.ccs}/state`, undefined, { token: false });
  if (!got.ok) {
    status.answer("The state", got, "");
    return;
  }
  const st = got.body;
  const now = new Date().toISOString();
  if (end) {
    st.finalized = st.finalized || now;
    st.end_of_updates = now;
  } else {
    st.end_of_updates = null;
  }
  const a = await call("POST", `${ctx.base}/events`, { type: "state", data: st });
  status.answer("The state", a, end ? "The updates are ended: the feed says no more come." : "The updates are reopened.");
  await reload("contest");
}

// renderFinal says where the finalization is: st when an answer just said so, else read again; read again
// every 2 s while it is queued or being built.
async function renderFinal(st) {
  clearTimeout(renderFinal.timer);
  if (!st) {
    const a = await call("GET", `${ctx.base}/finalize`);
    if (!a.ok) {
      $("final-info").textContent = `Where the finalization is could not be read: ${a.message}.`;
      return;
    }
    st = a.body;
  }
  let text = `Finalization: ${finalStates[st.state] || st.state}`;
  if (st.version) text += `; the final standings are at version ${st.version}`;
  if (st.error) text += `; the last error: ${st.error}`;
  $("final-info").textContent = text + ".";
  $("final-retry").hidden = st.state !== "dead";
  if (st.state === "queued" || st.state === "building") renderFinal.timer = setTimeout(() => renderFinal(null), 2000);
}

// setUpDelete deletes the contest once its id is typed and the deletion confirmed, then goes to the list.
function setUpDelete() {
  $("delete-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    if ($("d-id").value.trim() !== cid) {
      status.show(`Type the contest's id, ${cid}, to delete it.`, "error");
      $("d-id").focus();
      return;
    }
    if (!await confirmAction(`Delete contest ${cid}?`,
      "Its events, boards, team tokens and final standings are deleted for good; its live boards stop.", "Delete for good")) {
      status.show("Nothing deleted: cancelled.", "info");
      return;
    }
    const a = await call("DELETE", ctx.base);
    if (!a.ok) {
      status.answer("Deletion", a, "");
      return;
    }
    sessionStorage.setItem(flashKey, `Deleted contest ${cid}.`);
    location.href = "/admin";
  });
}

function renderFreeze() {
  const c = ctx.contest;
  const at = freezeAt(c);
  const start = c.start_time ? Date.parse(c.start_time) : NaN;
  const when = (d) => `${localTime(d)} (${contestTime(d - start)} into the contest)`;
  let text = `Phase: ${phaseNames[c.phase] || c.phase}. `;
  if (Number.isNaN(start)) {
    text += "The contest has no start time yet.";
  } else if (c.phase === "frozen") {
    text += `The public board is frozen since ${when(at)}.`;
  } else if (at && c.phase === "running") {
    text += `The public board freezes at ${when(at)}.`;
  } else if (c.phase === "running" && c.frozen) {
    text += "The contest hides its results from the public until its end: they show then.";
  } else if (at && c.phase === "ended" && !c.frozen) {
    text += "Every frozen result is revealed; thaw to record it (the public board stays as it is).";
  } else if (at && c.phase === "ended") {
    text += `The public board has been frozen since ${when(at)}; thaw to show the final board at once, or reveal it ` +
      "a result at a time on the board's big screen.";
  } else if (c.phase === "scheduled") {
    text += `It starts at ${localTime(new Date(start))}, for ${c.duration.replace(/\.0*$/, "")}` +
      (at ? `; the public board freezes ${contestTime(relMillis(c.scoreboard_freeze_duration))} before the end.` : ", without a freeze.");
  } else {
    text += at ? "" : "No freeze is scheduled.";
  }
  $("freeze-info").textContent = text.trim();
}

main();
