// The teams of a contest in the admin console: the list with its filter (ban, hide, token, revoke, edit),
// the form that registers one, and the import of a CSV file.

import { call, ingestCounts } from "./adminapi.js";
import { teamsFromCSV, validID } from "./admincsv.js";
import { FormError, keepFocus, refocus } from "./admincontest.js";

const $ = (id) => document.getElementById(id);

// The list shows at most this many teams at once; the filter finds the others.
const listLimit = 200;
// Teams sent per request by the import.
const importBatch = 500;

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  e.append(...children.filter((c) => c !== null && c !== undefined));
  return e;
}

function teamName(t) {
  return `${t.name || t.id} (${t.id})`;
}

// setUpTeams wires the team list, the team form and the import to the page's context ctx: { base (the
// contest's API address), contest, teams, organizations, status, reload(what), confirm(title, text, yes) }.
export function setUpTeams(ctx) {
  $("team-filter").addEventListener("input", () => renderTeams(ctx));
  $("team-show").addEventListener("change", () => renderTeams(ctx));
  $("team-list").tBodies[0].addEventListener("click", (e) => {
    const b = e.target.closest("button[data-action]");
    if (b) teamAction(ctx, b.dataset.action, b.dataset.team);
  });
  $("token-copy").addEventListener("click", () => copyToken(ctx));
  $("token-done").addEventListener("click", () => {
    $("token-value").value = "";
    $("token-out").hidden = true;
    // The keyboard goes back to the team's Token button, not to the top of the page with the hidden box.
    const id = $("token-out").dataset.team || "";
    const back = $("team-list").querySelector(`button[data-action="token"][data-team="${CSS.escape(id)}"]`);
    (back || $("team-filter")).focus();
  });
  $("team-form").addEventListener("submit", (e) => {
    e.preventDefault();
    saveTeam(ctx);
  });
  $("team-form").addEventListener("reset", () => setTimeout(() => editTeam(ctx, null)));
  setUpImport(ctx);
}

// hiddenGroup returns the hidden group of ctx's contest that team t is in, if any: its teams are off the
// public board.
function hiddenGroup(ctx, t) {
  return (ctx.contest.groups || []).find((g) => g.hidden && (t.group_ids || []).includes(g.id));
}

// renderTeams shows the teams the filter lets through, and fills the form's choices.
export function renderTeams(ctx) {
  const orgName = new Map(ctx.organizations.map((o) => [o.id, o.name || o.id]));
  const groupName = new Map((ctx.contest.groups || []).map((g) => [g.id, g.name || g.id]));
  const q = $("team-filter").value.trim().toLowerCase();
  const show = $("team-show").value;
  const matches = ctx.teams.filter((t) => {
    if (show === "banned" && !t.banned) return false;
    if (show === "hidden" && !t.hidden) return false;
    if (show === "board" && (t.banned || t.hidden || hiddenGroup(ctx, t))) return false;
    if (!q) return true;
    return `${t.id}\n${t.name}\n${orgName.get(t.organization_id) || t.organization_id || ""}`.toLowerCase().includes(q);
  });
  const shown = matches.slice(0, listLimit);
  const body = $("team-list").tBodies[0];
  const same = (b) => b.dataset.action ? `button[data-action="${b.dataset.action}"][data-team="${CSS.escape(b.dataset.team)}"]` : "";
  keepFocus(body, same, () => body.replaceChildren(...shown.map((t) => {
    const status = [];
    if (t.banned) status.push("Banned");
    if (t.hidden) status.push("Hidden");
    const off = hiddenGroup(ctx, t);
    if (off) status.push(`In hidden group ${off.name || off.id}`);
    if (status.length === 0) status.push("On the board");
    const button = (action, text) => {
      const b = el("button", { type: "button", textContent: text });
      b.dataset.action = action;
      b.dataset.team = t.id;
      b.setAttribute("aria-label", `${text}: ${teamName(t)}`);
      return b;
    };
    const tr = el("tr", {},
      el("th", { scope: "row", textContent: t.name || t.id }),
      el("td", {}, el("code", { textContent: t.id })),
      el("td", { textContent: orgName.get(t.organization_id) || t.organization_id || "" }),
      el("td", { textContent: (t.group_ids || []).map((g) => groupName.get(g) || g).join(", ") }),
      el("td", { className: "team-status", textContent: status.join(", ") }),
      el("td", { className: "actions" },
        button(t.banned ? "unban" : "ban", t.banned ? "Unban" : "Ban"),
        button(t.hidden ? "show" : "hide", t.hidden ? "Show" : "Hide"),
        button("token", "Token"),
        button("revoke", "Revoke tokens"),
        button("edit", "Edit")));
    tr.dataset.team = t.id;
    tr.classList.toggle("off", !!(t.banned || t.hidden));
    return tr;
  })));
  const more = matches.length > shown.length ? `; the first ${shown.length} are listed: narrow the filter for the others` : "";
  $("team-count").textContent = `${matches.length} of ${ctx.teams.length} teams${more}.`;
}

// fillTeamChoices offers the contest's organizations and groups in the team form, keeping what is chosen.
export function fillTeamChoices(ctx) {
  const org = $("t-org");
  const chosen = org.value;
  org.replaceChildren(new Option("None", ""), ...ctx.organizations.map((o) => new Option(`${o.name || o.id} (${o.id})`, o.id)));
  org.value = chosen;
  const box = $("t-groups");
  const checked = new Set([...box.querySelectorAll("input:checked")].map((i) => i.value));
  const groups = ctx.contest.groups || [];
  keepFocus(box, (i) => i.value ? `input[value="${CSS.escape(i.value)}"]` : "", () => {
    box.replaceChildren(el("legend", { textContent: "Groups" }),
      ...groups.map((g) => el("label", { className: "check" },
        el("input", { type: "checkbox", name: "group", value: g.id, checked: checked.has(g.id) }),
        ` ${g.name || g.id}${g.hidden ? " (hidden)" : ""}`)));
    if (groups.length === 0) box.append(el("p", { className: "help", textContent: "The contest has no groups yet." }));
  });
}

async function teamAction(ctx, action, id) {
  const t = ctx.teams.find((x) => x.id === id);
  if (!t) return;
  if (action === "edit") {
    editTeam(ctx, t);
    $("t-name").focus();
    return;
  }
  const path = `${ctx.base}/teams/${encodeURIComponent(id)}`;
  if (action === "token") {
    const a = await call("POST", `${path}/tokens`);
    if (a.ok && a.body && a.body.token) {
      $("token-out-title").textContent = `Token for ${teamName(t)}`;
      $("token-value").value = a.body.token;
      $("token-out").dataset.team = id;
      $("token-out").hidden = false;
      $("token-value").focus();
      $("token-value").select();
      ctx.status.show(`Issued a token for ${teamName(t)}: copy it now, it is not shown again.`);
    } else {
      ctx.status.answer(`Token for ${teamName(t)}`, a);
    }
    return;
  }
  if (action === "revoke") {
    if (!await ctx.confirm(`Revoke the tokens of ${teamName(t)}?`,
      "Every token issued for the team stops working at once; boards opened with one ask for a token again. Issue the team a new one afterwards.",
      "Revoke tokens")) {
      ctx.status.show("No token revoked: cancelled.", "info");
      return;
    }
    const a = await call("DELETE", `${path}/tokens`);
    const n = a.ok && a.body ? a.body.revoked : 0;
    ctx.status.answer(`Revoke the tokens of ${teamName(t)}`, a, `Revoked ${n} token${n === 1 ? "" : "s"} of ${teamName(t)}.`);
    return;
  }
  const requests = {
    ban: ["POST", "ban", `Banned ${teamName(t)}: off every board`],
    unban: ["DELETE", "ban", `Unbanned ${teamName(t)}: back on the board`],
    hide: ["POST", "hide", `Hid ${teamName(t)}: off the public board`],
    show: ["DELETE", "hide", `${teamName(t)} is shown again`],
  };
  const [method, what, done] = requests[action];
  const a = await call(method, `${path}/${what}`);
  ctx.status.answer(`${action[0].toUpperCase()}${action.slice(1)} ${teamName(t)}`, a, done);
  await ctx.reload("teams");
  // Keep the keyboard where it was: on the same action of the same team, whose label changed.
  const row = $("team-list").querySelector(`tr[data-team="${CSS.escape(id)}"]`);
  const again = row && row.querySelector(`button[data-action="${{ ban: "unban", unban: "ban", hide: "show", show: "hide" }[action]}"]`);
  if (again) refocus($("team-list"), again);
}

async function copyToken(ctx) {
  const input = $("token-value");
  let copied = false;
  try {
    // A browser that asks the person first may never answer: after 2 s the token is selected instead.
    await Promise.race([navigator.clipboard.writeText(input.value),
      new Promise((_, reject) => setTimeout(() => reject(new Error("no answer")), 2000))]);
    copied = true;
  } catch {
    input.focus();
    input.select();
    try {
      copied = document.execCommand("copy");
    } catch {
      copied = false;
    }
  }
  ctx.status.show(copied ? "The token is copied to the clipboard." : "The browser would not copy: the token is selected, copy it with Ctrl+C (⌘C).", copied ? "ok" : "error");
}

// editTeam fills the team form with a team (null: clears it for a new one).
function editTeam(ctx, t) {
  $("team-form-title").textContent = t ? `Edit team ${teamName(t)}` : "Register a team";
  $("t-save").textContent = t ? "Save the team" : "Register the team";
  $("t-id").value = t ? t.id : "";
  $("t-id").readOnly = !!t;
  $("t-name").value = t ? t.name : "";
  const org = t && t.organization_id ? t.organization_id : "";
  if (org && ![...$("t-org").options].some((o) => o.value === org)) {
    // An organization the API does not list (none of its teams): kept, not dropped by a save.
    $("t-org").append(new Option(org, org));
  }
  $("t-org").value = org;
  for (const box of $("t-groups").querySelectorAll("input")) box.checked = !!t && (t.group_ids || []).includes(box.value);
}

async function saveTeam(ctx) {
  const id = $("t-id").value.trim();
  const name = $("t-name").value.trim();
  try {
    if (!validID(id)) throw new FormError("t-id", "Id: 1 to 36 letters, digits, “_”, “-” and “.”, starting with a letter, a digit or “_”, not ending with “.”");
    if (name === "") throw new FormError("t-name", "Name: the team needs one");
  } catch (e) {
    ctx.status.show(e.message, "error");
    $(e.field).focus();
    return;
  }
  const team = { id, name, group_ids: [...$("t-groups").querySelectorAll("input:checked")].map((i) => i.value) };
  if ($("t-org").value) team.organization_id = $("t-org").value;
  const old = ctx.teams.find((x) => x.id === id);
  if (old && !$("t-id").readOnly && !await ctx.confirm(`Replace team ${teamName(old)}?`,
    `A team with the id ${id} is registered already (${teamName(old)}): registering this one replaces its name, organization and groups.`,
    "Replace the team")) {
    ctx.status.show(`Team ${teamName(old)} is unchanged: cancelled.`, "info");
    return;
  }
  if (old) for (const k of ["label", "display_name", "hidden"]) if (old[k]) team[k] = old[k];
  const a = await call("POST", `${ctx.base}/teams`, team);
  // What the boards show of it: its display name, which this form does not edit, rather than its name; and
  // whether it is on the public board at all.
  const off = hiddenGroup(ctx, team);
  let where = "";
  if (team.display_name && team.display_name !== team.name) where = `; the boards show its display name, “${team.display_name}”`;
  if (!old) where += off ? `: it is in hidden group ${off.name || off.id}, off the public board` : ": it is on the board";
  const ok = ctx.status.answer(`${old ? "Save" : "Register"} team ${teamName(team)}`, a,
    `${old ? "Saved" : "Registered"} team ${teamName(team)}${where}.`);
  if (ok) {
    $("team-form").reset();
    await ctx.reload("teams");
  }
}

// The import: the file (or pasted text) is checked in the browser, each line shown with what is wrong with
// it; the good lines are then posted in batches and each line gets the server's answer.
function setUpImport(ctx) {
  let checked = null;
  const check = () => {
    checked = previewCSV(ctx, $("csv-text").value);
  };
  $("csv-file").addEventListener("change", async () => {
    const f = $("csv-file").files[0];
    if (!f) return;
    $("csv-text").value = await f.text();
    check();
  });
  $("import-form").addEventListener("submit", (e) => {
    e.preventDefault();
    check();
  });
  $("csv-text").addEventListener("input", () => {
    checked = null;
    $("csv-import").disabled = true;
  });
  $("csv-import").addEventListener("click", async () => {
    if (!checked) return;
    $("csv-import").disabled = true;
    await importTeams(ctx, checked);
  });
}

// previewCSV checks the text and shows each line; it returns what can be imported, or null.
function previewCSV(ctx, text) {
  const known = { groups: ctx.contest.groups || [], organizations: ctx.organizations, teams: new Map(ctx.teams.map((t) => [t.id, t])) };
  const res = teamsFromCSV(text, known);
  const table = $("csv-lines");
  const summary = $("csv-summary");
  if (res.error) {
    table.hidden = true;
    summary.className = "summary error";
    summary.textContent = `Error: ${res.error}`;
    $("csv-import").disabled = true;
    ctx.status.show(`The CSV file: ${res.error}`, "error");
    return null;
  }
  const good = res.lines.filter((l) => l.team);
  const bad = res.lines.filter((l) => !l.team);
  table.tBodies[0].replaceChildren(...res.lines.map((l) => {
    const t = l.team || {};
    const cell = (text, cls) => el("td", { className: cls || "", textContent: text });
    const notes = [...l.errors.map((e) => `Error: ${e}`), ...l.warnings.map((w) => `Note: ${w}`)];
    const tr = el("tr", {},
      el("th", { scope: "row", textContent: String(l.line) }),
      cell(t.id || l.fields[0] || ""), cell(t.name || l.fields[1] || ""),
      cell(t.organization_id || ""), cell((t.group_ids || []).join("; ")),
      cell(notes.length ? notes.join(" ") : "OK", l.errors.length ? "bad" : ""),
      cell(l.team ? "not sent yet" : "not sent", "result"));
    tr.dataset.line = String(l.line);
    tr.classList.toggle("error", l.errors.length > 0);
    return tr;
  }));
  table.hidden = false;
  const lines = (n) => `${n} line${n === 1 ? "" : "s"}`;
  summary.className = bad.length ? "summary error" : "summary";
  summary.textContent = `${good.length} team${good.length === 1 ? "" : "s"} to register` +
    (bad.length ? `; ${lines(bad.length)} with an error (line${bad.length === 1 ? "" : "s"} ${bad.map((l) => l.line).join(", ")}) will not be sent.` : ".");
  $("csv-import").disabled = good.length === 0;
  $("csv-import").textContent = `Register ${good.length} team${good.length === 1 ? "" : "s"}`;
  ctx.status.show(`Checked the CSV file: ${summary.textContent}`, bad.length ? "error" : "info");
  summary.scrollIntoView({ block: "nearest" });
  return good.length ? good : null;
}

async function importTeams(ctx, lines) {
  const rowOf = (l) => $("csv-lines").querySelector(`tr[data-line="${l.line}"] .result`);
  let accepted = 0, duplicates = 0, rejected = 0, sent = 0;
  for (let i = 0; i < lines.length; i += importBatch) {
    const batch = lines.slice(i, i + importBatch);
    $("csv-summary").textContent = `Sending teams ${i + 1}–${i + batch.length} of ${lines.length}…`;
    const a = await call("POST", `${ctx.base}/teams`, batch.map((l) => l.team));
    if (!a.ok) {
      for (const l of batch) rowOf(l).textContent = `not registered: ${a.message}`;
      ctx.status.answer(`Import, lines ${batch[0].line}–${batch[batch.length - 1].line}`, a);
      $("csv-summary").textContent = `Stopped: the server refused lines ${batch[0].line}–${batch[batch.length - 1].line} (${a.message}); ` +
        `${sent} teams were sent before. Sending the file again is safe: a team sent twice is unchanged.`;
      $("csv-summary").className = "summary error";
      $("csv-import").disabled = false;
      await ctx.reload("teams");
      return;
    }
    for (const r of a.body.results) {
      const l = batch[r.item - 1];
      if (!l) continue;
      const cell = rowOf(l);
      cell.textContent = r.status === "accepted" ? "registered" : r.status === "duplicate" ? "unchanged (the same as registered)" : `rejected: ${r.message}`;
      cell.parentElement.classList.toggle("error", r.status === "rejected");
    }
    accepted += a.body.accepted;
    duplicates += a.body.duplicates;
    rejected += a.body.rejected;
    sent += batch.length;
  }
  const counts = ingestCounts({ accepted, duplicates, rejected, results: [] });
  $("csv-summary").textContent = `Sent ${sent} team${sent === 1 ? "" : "s"}: ${counts}.`;
  $("csv-summary").className = rejected ? "summary error" : "summary";
  ctx.status.show(`Imported the CSV file: ${counts}.`, rejected ? "error" : "ok");
  await ctx.reload("teams");
}
