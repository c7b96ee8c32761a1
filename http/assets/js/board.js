// The board page at /contests/{id}: the contest's header, the view chosen (public, a team's own, the jury's),
// the filters, the table kept live by the stream, and after a frozen contest the stepwise reveal.

import { Board } from "./model.js";
import { FatalError, Feed } from "./live.js";
import { Table } from "./table.js";
import { api, contestTime, freezeAt, localTime, nextPhaseAt, phaseNames, relMillis } from "./contest.js";
import { autoScroll, toggleFullscreen } from "./bigscreen.js";
import { Chart } from "./chart.js";
import { Reveal } from "./reveal.js";
import { askToken, forgetToken, keepToken, storedToken } from "./tokens.js";

const $ = (id) => document.getElementById(id);
const cid = decodeURIComponent(location.pathname.split("/")[2] || "");
const params = new URLSearchParams(location.search);
const base = `/api/v1/contests/${encodeURIComponent(cid)}`;
// The big screen shows the top rows of the throttled channel (the hall does not need every tick): ?top= when
// it is a whole number of rows, else 100 (the server takes no other).
const topRows = /^[1-9][0-9]{0,5}$/.test(params.get("top") || "") ? Number(params.get("top")) : 100;
const tokenKeys = { team: `rankd.token.team.${cid}`, jury: "rankd.token.jury" };
// The jury view reads with the admin console's token when this browser keeps no other: the console's "Jury
// board" link asked for a token again.
if (!storedToken(tokenKeys.jury) && storedToken("rankd.token.admin")) keepToken(tokenKeys.jury, storedToken("rankd.token.admin"));
const stateTexts = { connecting: "Connecting…", live: "Live", reconnecting: "Reconnecting…", polling: "Polling", error: "Stopped" };
const refreshContestEvery = 30000;

// stats are the page's own figures: the snapshots (and pages, top frames) and diffs applied, and how long
// the last of each took to apply and render, in ms.
const stats = { snapshots: 0, diffs: 0, lastDiffMs: 0, snapshotMs: 0 };
const page = { stats, board: null, publicBoard: null };
window.rankd = page; // for the curious, and for the browser tests

let contest = null;
let table = null;
let view = ["team", "jury"].includes(params.get("view")) ? params.get("view") : "public";
let bigscreen = params.get("bigscreen") === "1";
// juryScreen: the big screen of the hall's jury (?jury=1, as the admin console links to it), which offers to
// step the reveal though this browser keeps no admin token; the audience's big screen does not offer it.
const juryScreen = params.get("jury") === "1";
let stopScrolling = null;
let feeds = [];
let chart = null; // made when first shown
let reveal = null;

async function main() {
  try {
    contest = await api(base, contestToken());
  } catch (e) {
    if (e.status === 404) {
      fail(`There is no contest “${cid}” on this server.`);
    } else if ((e.status === 401 || e.status === 403) && contestToken()) {
      forgetToken(tokenKeys.jury); // the view asks for a good one once the board shows
      main();
    } else {
      fail(`The contest could not be read (${e.message}); retrying…`);
      setTimeout(main, 3000);
    }
    return;
  }
  $("message").hidden = true;
  $("admin").href = `/admin/contests/${encodeURIComponent(cid)}`;
  table = new Table($("board"), { rules: contest.rules, problems: problemsOf(contest), groups: groupNames(contest) });
  reveal = new Reveal({
    base, table, panel: $("reveal"),
    teamName: (id) => page.board?.byTeam.get(id)?.team_name || id,
    problemLabel: (id) => (contest.problems || []).find((p) => p.id === id)?.label || id,
    bigscreen: () => bigscreen,
    juryScreen,
    onActive: () => {
      showBanner();
      checkThawed();
      // The big screen shows the whole board, live, once the reveal has begun: not the top rows every 5 s.
      if (bigscreen) {
        setBigScreen(true);
        follow();
      }
    },
    onState: () => {
      showBanner();
      checkThawed();
    },
    onThawed: refreshContest,
  });
  page.reveal = reveal;
  showContest();
  setUpControls();
  setBigScreen(bigscreen);
  setInterval(refreshContest, refreshContestEvery);
  setInterval(showClock, 1000);
  if (view !== "public" && !storedToken(tokenKeys[view])) {
    // The public board shows while the token is asked for.
    const wanted = view;
    view = "public";
    follow();
    askViewToken(wanted, "");
  } else {
    follow();
  }
}

function problemsOf(c) {
  return (c.problems || []).slice().sort((a, b) => a.ordinal - b.ordinal);
}

function groupNames(c) {
  return new Map((c.groups || []).map((g) => [g.id, g.name]));
}

function fail(text) {
  const m = $("message");
  m.replaceChildren(text + " ");
  const back = document.createElement("a");
  back.href = "/";
  back.textContent = "See the contests.";
  m.append(back);
  m.hidden = false;
}

// phaseTimer reads the contest again just after its next scheduled phase change (the start, the freeze, the
// end), so that the header and the banner change with it, not up to refreshContestEvery later.
let phaseTimer;

function showContest() {
  clearTimeout(phaseTimer);
  const next = nextPhaseAt(contest);
  if (next && next - Date.now() < refreshContestEvery) {
    phaseTimer = setTimeout(refreshContest, next - Date.now() + 1000);
  }
  document.title = `${contest.name} · rankd`;
  $("title").textContent = contest.name;
  const ph = $("phase");
  ph.textContent = phaseNames[contest.phase] || contest.phase;
  ph.className = `phase ${contest.phase}`;
  const groups = $("group");
  const chosen = groups.options.length > 1 ? groups.value : params.get("group") || ""; // the address's, at first
  groups.replaceChildren(new Option("All groups", ""), ...(contest.groups || [])
    .filter((g) => !g.hidden || view === "jury")
    .map((g) => new Option(g.name || g.id, g.id)));
  groups.value = chosen;
  watchReveal();
  showBanner();
  showClock();
}

// showClock shows in the header how long until the start, or how long the contest still runs.
function showClock() {
  const el = $("clock");
  const start = Date.parse(contest.start_time || "");
  let text = "";
  if (contest.phase === "scheduled" && start) {
    text = `Starts in ${countdown(start - Date.now())}`;
  } else if (["running", "frozen"].includes(contest.phase) && start) {
    text = `${countdown(start + relMillis(contest.duration) - Date.now())} left`;
  }
  if (el.textContent !== text) el.textContent = text;
  el.hidden = text === "";
}

// countdown formats the time to a moment as h:mm:ss, whole seconds rounded up (so 0:00:00 is the moment
// itself), with the days apart.
function countdown(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(s / 86400);
  const rest = contestTime((s % 86400) * 1000);
  return days > 0 ? `${days} d ${rest}` : rest;
}

// contestToken is the token the contest is read with: the jury's names the hidden groups too.
function contestToken() {
  return view === "jury" ? storedToken(tokenKeys.jury) || "" : "";
}

// refreshSoon reads the contest again within a few seconds, at a moment of its own on each page, so that
// the pages open do not all ask at once.
let refreshSoonTimer = 0;

function refreshSoon() {
  if (refreshSoonTimer) return;
  refreshSoonTimer = setTimeout(() => {
    refreshSoonTimer = 0;
    refreshContest();
  }, Math.random() * 3000);
}

// checkThawed reads the contest again when an ended contest's public board, frozen as far as this page
// knows, hides nothing any more and no reveal made that: it was thawed, and the banner should stop saying
// it is frozen now rather than at the next regular read.
function checkThawed() {
  const st = reveal.state;
  if (["ended", "finalized"].includes(contest.phase) && publicFrozen() && !reveal.active && st && st.remaining === 0 && st.step === 0) refreshSoon();
}

async function refreshContest() {
  let c;
  try {
    c = await api(base, contestToken());
  } catch {
    return; // the feed shows the connection's state; the header waits for the next try
  }
  const ids = (x) => problemsOf(x).map((p) => `${p.id}:${p.label}`).join();
  const problemsChanged = ids(c) !== ids(contest);
  contest = c;
  table.groups = groupNames(contest);
  showContest();
  if (problemsChanged) {
    table.setProblems(problemsOf(contest));
    show(null, false);
  }
}

// problemsDiffer reports whether the rows of board b have cells of other problems than the table's columns:
// the contest's problems changed (its stream then sends a snapshot).
function problemsDiffer(b) {
  const cells = b.rows[0]?.cells;
  if (!cells) return false;
  const ids = (list) => list.map((x) => x.problem_id ?? x.id).sort().join();
  return ids(cells) !== ids(table.problems);
}

// checkFrozen reads the contest again soon when a frame (a snapshot, a diff, a page polled) of board b says
// that the public board hides verdicts while the contest read last says it does not, or the other way
// round: a freeze or a thaw made by hand (or by the clock), which the phase and the banner then show within
// a frame or a poll, not at the next regular read. b is the view's board, or in the jury view its public
// feed's (the jury's own hides nothing); before its first frame b.frozen is null.
function checkFrozen(b) {
  if (b.frozen === null) return;
  const hides = "frozen" in contest ? contest.frozen : publicFrozen() || hiddenUntilEnd();
  if (b.frozen !== hides) refreshSoon();
}

// publicFrozen reports whether the public board hides verdicts now, as the server decides it: during the
// freeze, and after the end of a contest with a freeze until it is thawed.
function publicFrozen() {
  if ("frozen" in contest) return contest.frozen && !hiddenUntilEnd(); // as the server says
  return contest.phase === "frozen" || (contest.phase === "ended" && freezeAt(contest) !== null);
}

// hiddenUntilEnd reports whether the public board hides every verdict until the end (OI and IOI's
// hide_until_end): each submission shows as pending, with no freeze to explain it.
function hiddenUntilEnd() {
  return !!(contest.rankd && contest.rankd.hide_until_end) && ["running", "frozen"].includes(contest.phase);
}

function showBanner() {
  const banner = $("banner");
  const at = freezeAt(contest);
  const since = at ? `${localTime(at)} (${contestTime(at - Date.parse(contest.start_time))} into the contest)` : "";
  let text = "";
  if (contest.phase === "scheduled") {
    text = contest.start_time
      ? `The contest has not started yet: it starts at ${localTime(new Date(contest.start_time))}.`
      : "The contest has not started yet, and its start time is not set.";
  } else if (reveal.active) {
    text = reveal.state.remaining > 0
      ? "The contest is over: the frozen results are revealed one at a time, from the bottom of the board up."
      : "The contest is over, and every result is revealed.";
  } else if (view === "jury") {
    text = hiddenUntilEnd()
      ? "Jury view: every verdict, live. The public sees no result until the end; cells marked with a corner differ from it."
      : publicFrozen()
        ? `Jury view: every verdict, live. The public board is frozen since ${since}; cells marked with a corner differ from it.`
        : "Jury view: every verdict, live.";
  } else if (hiddenUntilEnd()) {
    text = "The results are hidden until the end of the contest: every submission shows as pending (?).";
    if (view === "team") text += " Your own results are shown.";
  } else if (publicFrozen()) {
    text = `The scoreboard is frozen since ${since}: submissions made since then show as pending (?).`;
    if (view === "team") text += " Your own verdicts are shown.";
  }
  banner.textContent = text;
  banner.hidden = text === "";
  banner.classList.toggle("jury", view === "jury");
}

function setUpControls() {
  const viewSelect = $("view");
  viewSelect.value = view;
  viewSelect.addEventListener("change", () => chooseView(viewSelect.value));
  $("group").addEventListener("change", () => {
    // The big screen of a group follows the whole board, the top rows of every team saying nothing of it.
    if (bigscreen && topChannel() !== following.top) follow();
    else show(null, false);
  });
  $("search").value = params.get("q") || "";
  $("search").addEventListener("input", () => show(null, false));
  $("controls").addEventListener("submit", (e) => e.preventDefault());
  $("own").addEventListener("click", () => table.scrollToTeam(ownTeam()));
  $("forget").addEventListener("click", () => {
    forgetToken(tokenKeys[view]);
    chooseView("public");
  });
  $("chart-toggle").addEventListener("click", () => showChart($("chart").hidden));
  $("bigscreen").addEventListener("click", () => {
    setBigScreen(!bigscreen);
    if (bigscreen) toggleFullscreen();
    follow();
  });
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.ctrlKey || e.metaKey || e.altKey) {
      if (e.key === "Escape" && e.target === $("search")) {
        $("search").value = "";
        show(null, false);
      }
      return;
    }
    // A focused button takes Space and Enter itself.
    const button = e.target instanceof HTMLButtonElement && (e.key === " " || e.key === "Enter");
    if (!button && [" ", "ArrowRight", "n", "N"].includes(e.key) && reveal.canStep()) {
      e.preventDefault();
      if (!e.repeat) reveal.step();
    } else if (e.key === "/") {
      e.preventDefault();
      $("search").focus();
    } else if (e.key === "b") {
      setBigScreen(!bigscreen);
      follow();
    } else if (e.key === "f") {
      toggleFullscreen();
    } else if (e.key === "c") {
      showChart($("chart").hidden);
    }
  });
}

// showChart shows or hides the rank-over-time chart (chart.js); hidden, it costs nothing.
function showChart(on) {
  $("chart").hidden = !on;
  $("chart-toggle").setAttribute("aria-expanded", String(on));
  chart ||= new Chart($("chart"), () => ({
    // A team's view shows the public history: the history is of the public or the jury view.
    url: `${base}/history?view=${view === "jury" ? "jury" : "public"}`,
    token: view === "jury" ? storedToken(tokenKeys.jury) : "",
    contest,
  }));
  if (on) chart.start();
  else chart.stop();
}

function setBigScreen(on) {
  bigscreen = on;
  document.body.classList.toggle("bigscreen", on);
  $("bigscreen").textContent = on ? "Leave big screen" : "Big screen";
  if (stopScrolling) stopScrolling();
  // During the reveal the board goes where the reveal is, not up and down by itself.
  stopScrolling = on && !reveal.begun ? autoScroll($("board")) : null;
  table.measure();
  syncURL();
}

function chooseView(v) {
  if (v !== "public" && !storedToken(tokenKeys[v])) {
    askViewToken(v, "");
    return;
  }
  view = v;
  $("view").value = v;
  showContest();
  follow();
  refreshContest(); // the jury's contest has the hidden groups, the others' not
}

// askViewToken asks for the token of a view (tokens.js keeps it in this browser only) and shows the view.
async function askViewToken(v, error) {
  const token = await askToken({
    title: v === "team" ? "Team token" : "Jury token",
    help: v === "team"
      ? "Your team's token, from the organisers, shows your own verdicts during the freeze. It is kept in this browser only."
      : "A judge or admin token shows the live board. It is kept in this browser only.",
    error,
  });
  if (token) {
    keepToken(tokenKeys[v], token);
    chooseView(v);
  } else {
    $("view").value = view;
  }
}

function ownTeam() {
  const b = page.board;
  return b && b.view && b.view.startsWith("team:") ? b.view.slice(5) : "";
}

// watchReveal follows the stepwise reveal while the contest has ended, in the public view.
function watchReveal() {
  reveal.watch(["ended", "finalized"].includes(contest.phase) && view === "public");
}

// following says how the feeds follow the board: top, through the big screen's channel of the top rows.
const following = { top: false };

// topChannel reports whether the board is to be followed through the big screen's channel of the top rows:
// on the big screen, but not during a reveal begun (the reveal goes down the whole board) nor for a group (its
// teams among the top rows of all are not its top rows).
function topChannel() {
  return bigscreen && !reveal.begun && !$("group").value;
}

// follow starts the feeds of the view chosen: its own, and in the jury view the public one to compare with.
function follow() {
  for (const f of feeds) f.stop();
  $("view").value = view;
  syncURL();
  const board = new Board();
  const publicBoard = view === "jury" ? new Board() : null;
  Object.assign(page, { board, publicBoard });
  table.compare = publicBoard;
  table.ownTeam = "";
  table.setProblems(problemsOf(contest));
  table.setRows([], () => undefined, () => undefined);
  const token = view === "public" ? "" : storedToken(tokenKeys[view]);
  const top = topChannel();
  following.top = top;
  const channel = top ? `&top=${topRows}&throttle=5s` : "";
  const limit = top ? `&limit=${topRows}` : "";
  $("forget").hidden = view === "public";
  watchReveal();
  if (chart && !$("chart").hidden) chart.refresh(); // the view's history
  feeds = [new Feed({
    board, token, top,
    streamURL: `${base}/scoreboard/stream?view=${view}${channel}`,
    pollURL: `${base}/scoreboard?view=${view}${limit}`,
    onFrame: (changed, started) => {
      table.ownTeam = ownTeam();
      $("own").hidden = table.ownTeam === "";
      show(changed, true);
      reveal.redraw(); // the names of the rows it marks, once a new feed's first frame brought them
      reveal.refresh(); // while it watches: the public view of an ended contest
      if (view !== "jury") checkFrozen(board); // the jury's own view hides nothing: its public feed tells
      const ms = performance.now() - started;
      if (changed === null) {
        if (problemsDiffer(board)) refreshSoon(); // the columns follow
        stats.snapshots++;
        stats.snapshotMs = ms;
      } else {
        stats.diffs++;
        stats.lastDiffMs = ms;
      }
    },
    onState: showState,
  }).start()];
  if (publicBoard) {
    feeds.push(new Feed({
      board: publicBoard,
      streamURL: `${base}/scoreboard/stream?view=public`,
      pollURL: `${base}/scoreboard?view=public`,
      onFrame: (changed) => {
        table.render(changed, false);
        checkFrozen(publicBoard);
      },
      onState: () => {},
    }).start());
  }
}

function showState(state, err) {
  const el = $("state");
  el.className = `state ${state}`;
  el.textContent = stateTexts[state];
  el.title = state === "polling" ? "The live stream is unavailable: the board is read every few seconds." : "";
  if (state !== "error") return;
  if (err instanceof FatalError && (err.status === 401 || err.status === 403) && view !== "public") {
    const v = view;
    forgetToken(tokenKeys[v]);
    view = "public";
    showContest();
    follow();
    askViewToken(v, `The server refused the token: ${err.message}`);
    return;
  }
  // A stream of a contest deleted while it is shown ends with a not_found error.
  fail(err.status === 404 || err.code === "not_found" ? `There is no contest “${cid}” on this server.` : `The board stopped: ${err.message}.`);
}

// filtered holds the positions of the rows the filters let through, by team, when a filter is set.
let filtered = null;

// show lays out the rows the filters let through and renders them; animate lets moved rows glide.
function show(changed, animate) {
  const board = page.board;
  if (!board) return;
  const group = $("group").value;
  const q = $("search").value.trim().toLowerCase();
  if (!group && !q) {
    // The whole board: a change costs the rows it moves, not a pass over 10,000.
    filtered = null;
    table.setRows(board.rows, (id) => board.byTeam.get(id)?.pos, (r) => r.was);
  } else {
    const rows = board.rows.filter((r) => (!group || (r.group_ids || []).includes(group)) &&
      (!q || searchText(r).includes(q)));
    const before = filtered || new Map();
    const now = new Map(rows.map((r, i) => [r.team_id, i]));
    filtered = now;
    table.setRows(rows, (id) => now.get(id), (r) => before.get(r.team_id));
  }
  table.render(changed, animate);
  if (!animate) syncURL();
}

function searchText(r) {
  if (r.searchText === undefined) r.searchText = `${r.team_name || r.team_id}\n${r.organization || ""}`.toLowerCase();
  return r.searchText;
}

// syncURL keeps the address naming what is shown, so that it can be bookmarked or shared.
function syncURL() {
  const p = new URLSearchParams();
  if (view !== "public") p.set("view", view);
  if (bigscreen) p.set("bigscreen", "1");
  if (juryScreen) p.set("jury", "1");
  if (params.has("top")) p.set("top", String(topRows));
  if ($("group").value) p.set("group", $("group").value);
  if ($("search").value.trim()) p.set("q", $("search").value.trim());
  const qs = p.toString();
  history.replaceState(null, "", location.pathname + (qs ? `?${qs}` : ""));
}

main();
