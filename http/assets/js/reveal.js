// The stepwise reveal of a frozen contest after its end (the ICPC Resolver's "resolve"), on the board page.
// While the contest has ended with frozen cells, the page says where the reveal stands (step k of n),
// highlights the cell the next step reveals and the one the last step revealed, with their rows, and says
// when the reveal is over; the big screen keeps them in sight (a board read by hand is not scrolled). A jury on the big screen, with the admin token kept in this
// browser (the admin console's), steps with Space, → or N, or the button: one POST /reveal/next a step.
// Every screen, the jury's too, follows the steps through the public stream: each step is one diff of the
// public view, after which the page reads GET /reveal again.

import { adminToken, call, hasAdminToken } from "./adminapi.js";
import { api } from "./contest.js";

// How long a row takes to reach its place during the reveal: long enough to follow with the eyes.
const revealMoveMillis = 1200;

// How often the jury's big screen reads the reveal again while its next step is blocked.
const blockedRefreshMillis = 2000;

export class Reveal {
  // base is the contest's API address; panel the page's #reveal section; table the board's Table;
  // teamName(id) and problemLabel(id) name a team and a problem; bigscreen() reports whether the page is
  // the big screen, which scrolls to the reveal once begun and, with the admin token, steps it; juryScreen
  // whether it is the jury's, which asks for the token when it lacks it (the audience's does not); onActive() is
  // called when the reveal starts or stops being shown, and when its first step is made, onState()
  // when where it stands changed, onThawed() after the jury recorded the thaw.
  constructor({ base, panel, table, teamName, problemLabel, bigscreen, juryScreen, onActive, onState, onThawed }) {
    Object.assign(this, { base, panel, table, teamName, problemLabel, bigscreen, juryScreen, onActive, onState, onThawed });
    this.normalMoveMillis = table.moveMillis;
    this.watching = false;
    // active: the reveal is shown (the contest ended with frozen cells, or a step was made); begun: a step
    // was made, from when the big screen follows the reveal instead of scrolling the top rows (until then,
    // the end of the contest to the ceremony, the hall sees the board as before).
    this.active = false;
    this.begun = false;
    // state is GET /reveal's last answer (seq, step, remaining, next); last the cell the last step revealed
    // when this page knows it (its step; old_rank and new_rank when this page made it; already and rank,
    // the team's rank now, when this page asked for it after another screen had made it).
    this.state = null;
    this.last = null;
    this.busy = false;
    this.reading = false;
    this.again = false;
    this.error = "";
    this.blocked = "";
    this.scrolledStep = -1;
    const $ = (id) => panel.querySelector(`#${id}`);
    this.els = {
      count: $("reveal-count"), cell: $("reveal-cell"), error: $("reveal-error"), help: $("reveal-help"),
      next: $("reveal-next"), token: $("reveal-token"), thaw: $("reveal-thaw"),
    };
    this.els.next.addEventListener("click", () => this.step());
    this.els.token.addEventListener("click", async () => {
      if (await adminToken("", true)) this.#render();
    });
    this.els.thaw.addEventListener("click", () => this.#thaw());
  }

  // watch starts following the reveal (the contest has ended and the page shows the public view) or stops.
  watch(on) {
    this.watching = on;
    this.scrolledStep = -1; // a new look (the big screen turned on, another view): in sight again
    if (on) this.refresh();
    else this.#setActive(false);
  }

  // refresh reads where the reveal stands; the page calls it after each frame of the public board. Reads
  // do not overlap: a call during one makes one more after it.
  async refresh() {
    if (!this.watching) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    do {
      this.again = false;
      let st = null;
      const jury = this.bigscreen() && hasAdminToken();
      try {
        if (jury) {
          // The jury's answer also says why the next step would be refused (a verdict still to come), which
          // the jury then sees before it presses.
          const a = await call("GET", `${this.base}/reveal`);
          if (a.ok) st = a.body;
        } else {
          st = await api(`${this.base}/reveal`);
        }
      } catch {
        // The next frame, or the next look at the contest, reads it again.
      }
      if (st && this.watching) {
        this.#update(st, null);
        if (jury) {
          this.blocked = st.blocked ? st.blocked.message : "";
          this.#render();
          // The verdict it waits for changes nothing public, so no frame says it came: look again.
          clearTimeout(this.blockedTimer);
          if (this.blocked) this.blockedTimer = setTimeout(() => this.refresh(), blockedRefreshMillis);
        }
      }
    } while (this.again && this.watching);
    this.reading = false;
  }

  // redraw shows where the reveal stands again, as the page's rows now name its cells.
  redraw() {
    this.#render();
  }

  // canStep reports whether this screen steps the reveal now: the jury's big screen with the admin token,
  // while cells are hidden.
  canStep() {
    return this.active && this.bigscreen() && hasAdminToken() && this.state !== null && this.state.remaining > 0;
  }

  // step makes the next step. The request names it, so that a retry, or another jury screen's press of
  // the same moment, does not make two.
  async step() {
    if (!this.canStep() || this.busy) return;
    this.busy = true;
    this.error = "";
    this.#render();
    const asked = this.state.step + 1;
    const a = await call("POST", `${this.base}/reveal/next`, { step: asked });
    this.busy = false;
    if (a.ok) {
      const b = a.body;
      // A duplicate is a step another screen (or an earlier try) made: its ranks are both the team's rank
      // now, not a move; its cell is the last step's unless more steps were made since.
      if (!b.duplicate) this.#update(b, { ...b.revealed, old_rank: b.old_rank, new_rank: b.new_rank });
      else this.#update(b, b.step === asked ? { ...b.revealed, already: true, rank: b.new_rank } : null);
      // The jury's answer says why the next step would be refused, if it would be.
      this.blocked = b.blocked ? b.blocked.message : "";
      this.#render();
    } else {
      this.error = `The step was refused: ${a.message}`;
      this.#render();
      this.refresh();
    }
  }

  // #update takes a state of the reveal; revealed is the cell its last step revealed, when known.
  #update(st, revealed) {
    const old = this.state;
    if (old && st.seq < old.seq) return; // older than the one shown: an answer overtaken
    if (revealed) {
      this.last = { ...revealed, step: st.step };
    } else if (!this.last || this.last.step !== st.step) {
      // The cell a step reveals is the next cell of the state before it: the order is the board's, and
      // every change of the board in between (a diff) made this page read the state again.
      this.last = old && old.next && st.step === old.step + 1 ? { ...old.next, step: st.step } : null;
    }
    if (!old || old.step !== st.step) {
      this.error = "";
      this.blocked = "";
    }
    this.state = st;
    this.#setActive(this.watching && (st.remaining > 0 || st.step > 0));
    if (this.active && st.step > 0 && !this.begun) {
      this.begun = true;
      this.scrolledStep = -1;
      this.onActive();
    }
    this.#render();
    if (!old || old.step !== st.step || old.remaining !== st.remaining) this.onState();
  }

  #setActive(on) {
    if (on === this.active) return;
    this.active = on;
    this.begun = false;
    this.panel.hidden = !on;
    this.table.moveMillis = on ? revealMoveMillis : this.normalMoveMillis;
    this.scrolledStep = -1;
    if (!on) this.table.setMarks(new Map());
    this.onActive();
  }

  #render() {
    if (!this.active) return;
    const st = this.state;
    const { count, cell, error, help, next, token, thaw } = this.els;
    const done = st.remaining === 0;
    const jury = this.bigscreen();
    const kept = hasAdminToken();
    count.textContent = `Step ${st.step} of ${st.step + st.remaining}`;
    const parts = [];
    if (this.last) parts.push(`Revealed: ${this.#cellName(this.last)}${this.#move(this.last)}.`);
    if (st.next) parts.push(`Next: ${this.#cellName(st.next)}.`);
    if (done) parts.push("The reveal is complete: the board shows every result.");
    cell.textContent = parts.join(" ");
    const problem = this.error || (jury && kept ? this.blocked : "");
    error.textContent = problem;
    error.hidden = problem === "";
    help.hidden = !(jury && kept && !done);
    next.hidden = !(jury && kept && !done);
    next.disabled = this.busy;
    token.hidden = !(jury && this.juryScreen && !kept && !done);
    thaw.hidden = !(jury && kept && done);

    const marks = new Map();
    const mark = (c, cls, note) => {
      if (!marks.has(c.team_id)) marks.set(c.team_id, { row: "reveal-row", cells: new Map() });
      marks.get(c.team_id).cells.set(c.problem_id, { cls, note });
    };
    if (this.last) mark(this.last, "reveal-done", "revealed by the last step");
    if (st.next) mark(st.next, "reveal-next", "the next step reveals it");
    this.table.setMarks(marks);
    this.#scroll();
  }

  // #scroll brings, once a step, the cell revealed next into sight on the big screen; at the end, the top
  // of the board.
  #scroll() {
    const st = this.state;
    if (!this.bigscreen() || !this.begun || this.scrolledStep === st.step) return;
    if (st.next) {
      if (this.table.indexOf(st.next.team_id) === undefined) return; // not on the page yet: at the next frame
      this.table.keepInSight(st.next.team_id);
    } else if (this.table.list.length > 0) {
      this.table.keepInSight(this.table.list[0].team_id);
    }
    this.scrolledStep = st.step;
  }

  #cellName(c) {
    return `${this.teamName(c.team_id)}, problem ${this.problemLabel(c.problem_id)}`;
  }

  #move(c) {
    if (c.already) return c.rank ? `, a step already made (another screen's): rank ${c.rank} now` : ", a step already made (another screen's)";
    if (!c.old_rank || !c.new_rank) return "";
    return c.new_rank === c.old_rank ? `, stays at rank ${c.new_rank}` : `, rank ${c.old_rank} → ${c.new_rank}`;
  }

  // #thaw records the thaw once every cell is revealed: the public board changes no more, but the state
  // says "thawed" only from then on, to the page and to the tools that read the CCS state.
  async #thaw() {
    const a = await call("POST", `${this.base}/thaw`);
    if (!a.ok) {
      this.error = `The thaw was refused: ${a.message}`;
      this.#render();
      return;
    }
    this.onThawed();
  }
}
