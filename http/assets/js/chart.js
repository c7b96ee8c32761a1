// The rank-over-time chart of the board page: the ranks of the top teams over the contest, read from the
// history endpoint (/api/v1/contests/{id}/history) and drawn here as SVG, without a library. Rank 1 is at
// the top, contest time runs across, each team is a line of its own colour (and, from the sixth, dashes)
// with its name at its end. Each line is focusable (Tab) and labelled with the team's course for screen
// readers; a table gives the same figures. While the contest runs the chart is read again every few
// seconds, with its ETag (a 304 while nothing changed).

import { contestTime, relMillis } from "./contest.js";

const colours = 10; // .series.s0 … .s9 in the style sheet
const liveEvery = 5000;
const idleEvery = 30000;
const height = 320;
const margin = { top: 22, right: 160, bottom: 28, left: 40 };
const labelGap = 13; // px between two names at the lines' ends

export class Chart {
  // root is the chart's section (board.html: an svg, a table, a status); source() returns the history's
  // url, the token to read it with ("" for none) and the contest, as the API describes it.
  constructor(root, source) {
    this.root = root;
    this.source = source;
    this.svg = root.querySelector("svg");
    this.ns = this.svg.namespaceURI; // the page parsed it as SVG: no namespace to spell out here
    this.tbody = root.querySelector("tbody");
    this.status = root.querySelector(".chart-status");
    this.data = null;
    this.url = "";
    this.etag = "";
    this.timer = 0;
    this.gen = 0;
    this.running = false;
    new ResizeObserver(() => {
      if (this.running && this.data) this.draw();
    }).observe(root);
  }

  start() {
    this.running = true;
    this.refresh();
  }

  stop() {
    this.running = false;
    clearTimeout(this.timer);
  }

  // refresh reads the history again (at once: the view changed, say) and plans the next reading.
  async refresh() {
    clearTimeout(this.timer);
    if (!this.running) return;
    const gen = ++this.gen; // a later refresh supersedes this one
    const { url, token, contest } = this.source();
    if (url !== this.url) {
      Object.assign(this, { url, etag: "", data: null });
      this.say("Loading…");
    }
    try {
      const headers = { Accept: "application/json" };
      if (token) headers.Authorization = "Bearer " + token;
      if (this.etag) headers["If-None-Match"] = this.etag;
      const resp = await fetch(url, { headers, cache: "no-store" });
      if (gen !== this.gen || !this.running) return;
      if (resp.status === 200) {
        const data = await resp.json();
        if (gen !== this.gen) return;
        this.data = data;
        this.etag = resp.headers.get("ETag") || "";
        this.say("");
      } else if (resp.status !== 304) {
        const body = await resp.json().catch(() => null);
        this.say(`The chart could not be read: ${body && body.message ? body.message : `HTTP ${resp.status}`}.`);
      }
      if (this.data) this.draw(); // a 304 too: time went on, and the lines follow it
    } catch {
      if (gen !== this.gen) return;
      this.say("The chart could not be read; retrying…");
    }
    if (this.running && contest.phase !== "finalized") {
      this.timer = setTimeout(() => this.refresh(), live(contest) ? liveEvery : idleEvery);
    }
  }

  say(text) {
    this.status.textContent = text;
  }

  // draw lays the chart out for the width of its section.
  draw() {
    const { contest } = this.source();
    const teams = this.data.teams || [];
    const style = getComputedStyle(this.root);
    const inner = this.root.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const width = Math.max(360, Math.floor(inner || 0));
    const plot = { w: width - margin.left - margin.right, h: height - margin.top - margin.bottom };
    const end = endOf(contest, teams);
    let worst = 10;
    for (const s of teams) for (const p of s.points) worst = Math.max(worst, p.rank);
    // The contest fills the width; changes after its end (a thaw, a reveal, perhaps days later) get a band
    // at the right of their own, in time order, rather than squeeze the contest into a sliver.
    const main = Math.min(end, relMillis(contest.duration) || end);
    const split = end > main ? plot.w * (1 - afterBand) : plot.w;
    const x = (ms) => {
      const t = Math.min(ms, end);
      return t <= main ? margin.left + (t / main) * split : margin.left + split + ((t - main) / (end - main)) * (plot.w - split);
    };
    const y = (rank) => margin.top + ((rank - 1) / (worst - 1)) * plot.h;

    const svg = this.svg;
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("width", String(width));
    svg.setAttribute("height", String(height));
    const axes = this.el("g", { class: "axes", "aria-hidden": "true" });
    const freeze = relMillis(contest.duration) - relMillis(contest.scoreboard_freeze_duration);
    if (this.data.view !== "jury" && relMillis(contest.scoreboard_freeze_duration) > 0 && freeze < end) {
      // The public board stood still from the freeze on, until the thaw: the first change after the end
      // (the end itself when nothing changed then, or the chart's end while not thawed).
      const duration = relMillis(contest.duration);
      let thaw = ["thawed", "finalized"].includes(contest.phase) ? duration : end;
      const after = teams.flatMap((s) => s.points.map((p) => p.time_ms)).filter((t) => t > duration);
      if (after.length) thaw = Math.min(...after);
      const x0 = x(freeze);
      const x1 = x(Math.min(thaw, end));
      axes.append(this.el("rect", { class: "frozen", x: x0, y: margin.top, width: Math.max(0, x1 - x0), height: plot.h }));
      axes.append(this.text("frozen", { x: x0 + 4, y: margin.top - 8, class: "axis-name" }));
    }
    for (const r of rankTicks(worst)) {
      axes.append(this.el("line", { class: "grid", x1: margin.left, x2: margin.left + plot.w, y1: y(r), y2: y(r) }));
      axes.append(this.text(String(r), { x: margin.left - 6, y: y(r), class: "tick y" }));
    }
    for (const t of timeTicks(main)) {
      axes.append(this.el("line", { class: "grid", x1: x(t), x2: x(t), y1: margin.top, y2: margin.top + plot.h }));
      axes.append(this.text(contestTime(t).replace(/:00$/, ""), { x: x(t), y: margin.top + plot.h + 16, class: "tick x" }));
    }
    if (split < plot.w) {
      axes.append(this.el("line", { class: "grid end", x1: x(main), x2: x(main), y1: margin.top, y2: margin.top + plot.h }));
      axes.append(this.text("after", { x: (x(main) + margin.left + plot.w) / 2, y: margin.top + plot.h + 16, class: "tick x" }));
    }
    axes.append(this.text("rank", { x: margin.left - 6, y: margin.top - 8, class: "axis-name y" }));

    // The names at the lines' ends, moved apart where ranks are close (or shared).
    const ends = teams.map((s, i) => ({ i, y: y(last(s.points).rank || worst) })).sort((a, b) => a.y - b.y || a.i - b.i);
    for (let k = 1; k < ends.length; k++) ends[k].y = Math.max(ends[k].y, ends[k - 1].y + labelGap);
    const overflow = ends.length ? ends[ends.length - 1].y - (margin.top + plot.h) : 0;
    if (overflow > 0) for (const e of ends) e.y = Math.max(margin.top, e.y - overflow);
    const labelY = new Map(ends.map((e) => [e.i, e.y]));

    const lines = teams.map((s, i) => {
      const name = s.team_name || s.team_id;
      const g = this.el("g", { class: `series s${i % colours}${i >= colours / 2 ? " dashed" : ""}`, tabindex: "0",
        role: "img", "aria-label": describe(name, s.points), "data-team": s.team_id });
      const now = last(s.points);
      g.append(this.el("path", { class: "line", d: pathOf(s.points, x, y, end) }));
      if (now.rank > 0) {
        g.append(this.el("circle", { class: "end", cx: x(end), cy: y(now.rank), r: 3 }));
        g.append(this.el("line", { class: "leader", x1: x(end), x2: x(end) + 6, y1: y(now.rank), y2: labelY.get(i) }));
      }
      // Cut to the room at the right, with an ellipsis: the whole name is the line's title.
      const label = this.text(name.length > labelChars ? `${name.slice(0, labelChars - 1)}…` : name, { x: x(end) + 9, y: labelY.get(i), class: "label" });
      const title = this.el("title", {});
      title.textContent = name;
      g.append(label, title);
      return g;
    });
    svg.replaceChildren(axes, ...lines);
    this.fillTable(teams);
  }

  // fillTable writes the figures of the chart as a table: each team, its rank now, its best, and each
  // change of rank.
  fillTable(teams) {
    const rows = teams.map((s) => {
      const tr = document.createElement("tr");
      const ranked = s.points.filter((p) => p.rank > 0);
      const best = ranked.length ? Math.min(...ranked.map((p) => p.rank)) : 0;
      const changes = [];
      let prev = -1;
      for (const p of s.points) {
        if (p.rank !== prev) changes.push(`${contestTime(p.time_ms)} ${p.rank ? `#${p.rank}` : "unranked"}`);
        prev = p.rank;
      }
      const cell = (tag, text) => Object.assign(document.createElement(tag), { textContent: text });
      tr.append(Object.assign(cell("th", s.team_name || s.team_id), { scope: "row" }), cell("td", rankText(last(s.points).rank)),
        cell("td", rankText(best)), cell("td", changes.join(", ")));
      return tr;
    });
    this.tbody.replaceChildren(...rows);
  }

  el(name, attrs) {
    const e = document.createElementNS(this.ns, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    return e;
  }

  text(content, attrs) {
    const t = this.el("text", attrs);
    t.textContent = content;
    return t;
  }
}

// live reports whether a contest's board still moves with the clock.
function live(c) {
  return c.phase === "running" || c.phase === "frozen";
}

// labelChars is the most characters of a name at a line's end that the right margin holds.
const labelChars = 22;

// afterBand is the part of the width given to the changes after the contest's end.
const afterBand = 0.1;

// endOf is the contest time the chart runs to: now while the contest runs, else its end (or the last
// change after it, a thaw say).
function endOf(c, teams) {
  const duration = relMillis(c.duration) || 1;
  let end = duration;
  if (live(c) && c.start_time) end = Math.min(duration, Date.now() - Date.parse(c.start_time));
  for (const s of teams) end = Math.max(end, last(s.points).time_ms);
  return Math.max(end, 60000);
}

// pathOf draws a team's ranks as steps: a rank holds until the next change; a gap while unranked.
function pathOf(points, x, y, end) {
  let d = "";
  let prev = 0;
  points.forEach((p, i) => {
    const to = i + 1 < points.length ? points[i + 1].time_ms : end;
    if (p.rank === 0) {
      prev = 0;
      return;
    }
    d += prev === 0 ? `M${x(p.time_ms)},${y(p.rank)}` : `V${y(p.rank)}`;
    d += `H${x(to)}`;
    prev = p.rank;
  });
  return d;
}

// describe tells a team's course in words, for screen readers.
function describe(name, points) {
  const now = last(points).rank;
  const ranked = points.filter((p) => p.rank > 0);
  if (!ranked.length) return `${name}: not ranked`;
  const best = ranked.reduce((a, b) => (b.rank < a.rank ? b : a));
  const moves = points.filter((p, i) => i > 0 && p.rank !== points[i - 1].rank).length;
  return `${name}: ${rankText(now)} now; best ${rankText(best.rank)}, from ${contestTime(best.time_ms)}; ${moves} ${moves === 1 ? "change" : "changes"} of rank`;
}

function rankText(r) {
  return r > 0 ? `rank ${r}` : "not ranked";
}

function last(a) {
  return a[a.length - 1];
}

// rankTicks are the ranks marked on the axis: 1, then steps of a round size.
function rankTicks(worst) {
  const step = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000].find((s) => worst / s <= 8) || Math.ceil(worst / 8);
  const ticks = [1];
  for (let r = step; r <= worst; r += step) if (r > 1) ticks.push(r);
  return ticks;
}

// timeTicks are the contest times marked on the axis, in round minutes or hours.
function timeTicks(end) {
  const minute = 60000;
  const step = [5, 10, 15, 30, 60, 120, 180, 360, 720, 1440].map((m) => m * minute).find((s) => end / s <= 8) || end;
  const ticks = [];
  for (let t = 0; t <= end; t += step) ticks.push(t);
  return ticks;
}
