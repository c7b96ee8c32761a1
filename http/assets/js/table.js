// The scoreboard table, windowed: only the rows in sight (and a few around) are in the DOM, each placed by
// a transform, so a board of 10,000 teams costs a few dozen rows of DOM and a change costs the rows it
// touches in sight. A row that moves glides to its new place (FLIP, with the Web Animations API) while the
// page stays still.

import { cellView, sameCell, totalHeads, totals } from "./cells.js";

// Rows rendered beyond each edge of the view, so that scrolling shows no blank.
const overscan = 8;
const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");

export class Table {
  // scroller scrolls the table (its header sticks to its top). compare, in the jury view, is the public
  // board: cells that differ from it are marked.
  constructor(scroller, { rules, problems, groups }) {
    this.scroller = scroller;
    this.head = scroller.querySelector(".head");
    this.body = scroller.querySelector(".rows");
    this.rules = rules;
    this.groups = groups;
    this.ownTeam = "";
    this.compare = null;
    // How long a moving row takes to reach its place (the reveal takes its time).
    this.moveMillis = 450;
    // marks are classes added to rows and cells, by team: {row, cells: Map(problem id → {cls, note})}, the
    // note added to the cell's label (the reveal's highlights); setMarks changes them.
    this.marks = new Map();
    this.setRows([], () => undefined, () => undefined);
    this.els = new Map(); // team id → rendered row
    this.setProblems(problems);
    let pending = false;
    scroller.addEventListener("scroll", () => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        this.render(new Set(), false);
      });
    }, { passive: true });
    // A cell's flash (see flash) ends with its animation: one listener for every cell.
    this.body.addEventListener("animationend", (e) => {
      if (e.target instanceof Element && e.target.classList.contains("prob")) e.target.classList.remove("flash");
    });
    new ResizeObserver(() => {
      this.measure();
      this.render(new Set(), false);
    }).observe(scroller);
  }

  // setProblems lays out the columns; every rendered row is built again.
  setProblems(problems) {
    this.problems = problems;
    const heads = totalHeads(this.rules);
    this.scroller.style.setProperty("--problems", problems.length);
    this.scroller.style.setProperty("--totals", heads.length);
    this.head.replaceChildren(
      headCell("rank", "#", "Rank"),
      headCell("team", "Team", "Team, organization and group"),
      ...heads.map(([text, title]) => headCell("total", text, title)),
      ...problems.map((p) => {
        const c = headCell("prob", p.label, p.name);
        if (p.rgb) c.style.setProperty("--balloon", p.rgb);
        return c;
      }),
    );
    for (const id of [...this.els.keys()]) this.#drop(id);
    this.measure(); // the big screen's type is sized by the number of columns
  }

  // measure reads the row height from the style sheet (it differs on the big screen).
  measure() {
    const probe = document.createElement("div");
    probe.className = "row";
    probe.setAttribute("aria-hidden", "true");
    this.body.append(probe);
    this.rowHeight = probe.getBoundingClientRect().height || 40;
    probe.remove();
  }

  // setRows gives the rows to show, in order, with indexOf(teamID), the position of a team's row in them,
  // and wasOf(row), the position a changed row had before (undefined: none, or unknown).
  setRows(list, indexOf, wasOf) {
    Object.assign(this, { list, indexOf, wasOf });
    this.scroller.setAttribute("aria-rowcount", String(list.length + 1));
  }

  // render brings the rows in sight up to date: those in changed (null: all) are filled again, every rank
  // and place in sight is checked, and with animate the rows that moved glide from their old place.
  render(changed, animate) {
    const h = this.rowHeight;
    const height = `${this.list.length * h}px`;
    if (this.body.style.height !== height) this.body.style.height = height;
    const top = this.scroller.scrollTop - this.body.offsetTop;
    const first = Math.max(0, Math.floor(top / h) - overscan);
    const last = Math.min(this.list.length, Math.ceil((top + this.scroller.clientHeight) / h) + overscan);
    const seen = { from: top - h, to: top + this.scroller.clientHeight };
    animate = animate && !reducedMotion.matches;
    for (const [id, rec] of this.els) {
      const i = this.indexOf(id);
      if (i !== undefined && i >= first && i < last) continue;
      // A row that moves out of sight goes there before it goes.
      if (animate && i !== undefined && rec.y >= seen.from && rec.y <= seen.to) {
        this.#fill(rec, this.list[i], changed);
        this.#move(rec, i * h, true);
        if (!rec.leaving) rec.leaving = setTimeout(() => this.#drop(id), this.moveMillis);
      } else {
        this.#drop(id);
      }
    }
    for (let i = first; i < last; i++) {
      const row = this.list[i];
      let rec = this.els.get(row.team_id);
      if (!rec) {
        rec = this.#create(row);
        const was = changed === null || changed.has(row.team_id) ? this.wasOf(row) : undefined;
        if (animate && was !== undefined && was !== i) {
          // It comes from out of sight: it starts just beyond the edge it comes from.
          this.#move(rec, Math.min(Math.max(was * h, seen.from), seen.to + h), false);
        }
        this.body.append(rec.el);
      } else if (rec.leaving) {
        clearTimeout(rec.leaving);
        rec.leaving = 0;
      }
      this.#fill(rec, row, changed);
      this.#move(rec, i * h, animate);
      if (rec.index !== i) {
        rec.index = i;
        rec.el.setAttribute("aria-rowindex", String(i + 2));
      }
    }
  }

  // scrollToTeam brings a team's row to the middle of the view.
  scrollToTeam(id) {
    const i = this.indexOf(id);
    if (i !== undefined) this.scroller.scrollTop = this.body.offsetTop + i * this.rowHeight - this.scroller.clientHeight / 2;
  }

  // keepInSight scrolls, smoothly, to a team's row when it is not in the middle half of the view.
  keepInSight(id) {
    const i = this.indexOf(id);
    if (i === undefined) return;
    const y = this.body.offsetTop + i * this.rowHeight - this.scroller.scrollTop;
    const view = this.scroller.clientHeight;
    if (y >= view / 4 && y + this.rowHeight <= (view * 3) / 4) return;
    this.scroller.scrollTo({ top: this.body.offsetTop + i * this.rowHeight - view / 2, behavior: reducedMotion.matches ? "auto" : "smooth" });
  }

  // setMarks replaces the marks, and fills again the rows whose marks changed.
  setMarks(marks) {
    const touched = new Set([...this.marks.keys(), ...marks.keys()]);
    this.marks = marks;
    this.render(touched, false);
  }

  #create(row) {
    const el = document.createElement("div");
    el.className = "row";
    el.setAttribute("role", "row");
    const rank = cell("rank");
    const team = cell("team");
    const name = document.createElement("span");
    name.className = "name";
    const aff = document.createElement("span");
    aff.className = "aff";
    team.append(name, aff);
    const tots = totalHeads(this.rules).map(() => cell("total"));
    const probs = this.problems.map(() => {
      const c = cell("prob");
      const t = document.createElement("span");
      t.className = "top";
      const b = document.createElement("span");
      b.className = "bot";
      c.append(t, b);
      return { el: c, top: t, bot: b, cls: "", result: "", label: "" };
    });
    el.append(rank, team, ...tots, ...probs.map((p) => p.el));
    const rec = { el, rank, team, name, aff, affKey: null, tots, probs, y: NaN, index: -1, row: null, leaving: 0, anim: null };
    this.els.set(row.team_id, rec);
    return rec;
  }

  #drop(id) {
    const rec = this.els.get(id);
    if (!rec) return;
    clearTimeout(rec.leaving);
    rec.el.remove();
    this.els.delete(id);
  }

  // #move puts a row at y, gliding from where it is seen now when animate.
  #move(rec, y, animate) {
    if (rec.y === y) return;
    let from = rec.y;
    rec.y = y;
    rec.el.style.transform = `translateY(${y}px)`;
    if (!animate || Number.isNaN(from)) return;
    if (rec.anim && rec.anim.playState === "running") {
      from = new DOMMatrix(getComputedStyle(rec.el).transform).m42; // a move cut short starts where it is
      rec.anim.cancel();
    }
    rec.anim = rec.el.animate([{ transform: `translateY(${from}px)` }, { transform: `translateY(${y}px)` }],
      { duration: this.moveMillis, easing: "ease" });
  }

  // #fill writes what changed of a row: its rank always (other rows move it), the rest when the row is
  // in changed (null: every row) or is a new object.
  #fill(rec, row, changed) {
    setText(rec.rank, String(row.rank || ""));
    if (rec.row === row && changed !== null && !changed.has(row.team_id)) return;
    const fresh = rec.row === null;
    rec.row = row;
    const mark = this.marks.get(row.team_id);
    rec.el.className = `row${row.team_id === this.ownTeam ? " own" : ""}${mark && mark.row ? " " + mark.row : ""}`;
    const name = row.team_name || row.team_id;
    setText(rec.name, name);
    const groups = (row.group_ids || []).map((g) => this.groups.get(g)).filter(Boolean);
    const aff = [row.organization, ...groups].filter(Boolean);
    const affKey = aff.join(" · ");
    if (rec.affKey !== affKey) {
      // Each part is isolated: two right-to-left names in a row would otherwise read in the wrong order.
      rec.aff.replaceChildren(...aff.flatMap((text, i) => {
        const part = document.createElement("bdi");
        part.textContent = text;
        return i > 0 ? [" · ", part] : [part];
      }));
      rec.affKey = affKey;
    }
    // The whole of a name cut short, for a pointer resting on it.
    const title = affKey ? `${name}\n${affKey}` : name;
    if (rec.team.title !== title) rec.team.title = title;
    totals(this.rules, row).forEach((t, i) => setText(rec.tots[i], t));
    const pub = this.compare ? this.compare.byTeam.get(row.team_id) : null;
    this.problems.forEach((p, i) => {
      const c = row.cells[i] && row.cells[i].problem_id === p.id ? row.cells[i] : row.cells.find((x) => x.problem_id === p.id) || {};
      const v = cellView(this.rules, p, c);
      const slot = rec.probs[i];
      const pc = pub && (pub.cells.find((x) => x.problem_id === p.id) || {});
      const differs = pc && !sameCell(c, pc);
      const marked = mark && mark.cells.get(p.id);
      const cls = `c prob ${v.cls}${differs ? " differs" : ""}${marked ? " " + marked.cls : ""}`;
      let label = differs ? `${v.label} (public: ${cellView(this.rules, p, pc).label})` : v.label;
      if (marked) label += ` (${marked.note})`;
      const updated = !fresh && (slot.top.textContent !== v.top || slot.bot.textContent !== v.bottom || slot.result !== v.cls);
      slot.result = v.cls;
      if (slot.cls !== cls) {
        slot.el.className = cls;
        slot.cls = cls;
      }
      // After the class is set, which would take the flash's away.
      if (updated) flash(slot.el);
      setText(slot.top, v.top);
      setText(slot.bot, v.bottom);
      if (slot.label !== label) {
        slot.el.setAttribute("aria-label", label);
        slot.el.title = label;
        slot.label = label;
      }
    });
  }
}

function cell(kind) {
  const c = document.createElement("div");
  c.className = `c ${kind}`;
  c.setAttribute("role", "cell");
  return c;
}

function headCell(kind, text, title) {
  const c = document.createElement("div");
  c.className = `c ${kind}`;
  c.setAttribute("role", "columnheader");
  c.textContent = text;
  c.title = title;
  return c;
}

function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

// flash marks a cell that changed; the table's one listener takes the mark away when its animation ends.
// No listener a flash: a hidden tab (or one that shows no motion) runs no animation, and would pile them up.
function flash(el) {
  el.classList.add("flash");
}
