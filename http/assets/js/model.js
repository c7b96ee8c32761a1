// The board of one view as the stream gives it: the rows in order and the view's sequence number. It
// applies snapshots and diffs exactly as the Go client (package rankd/stream) does, in time proportional
// to the rows that move rather than to the board.

// GapError reports a diff that does not start at the board's sequence number: a frame was missed, and
// the client reconnects with Last-Event-ID.
export class GapError extends Error {
  constructor(have, base) {
    super(`a frame is missing: the board is at ${have}, the diff starts at ${base}`);
  }
}

// Each row holds, besides what the server sent, pos (its index in rows), rank, and was: its position
// before the change that brought this row object, for a screen to move it from there.
export class Board {
  constructor() {
    this.seq = 0;
    this.rows = [];
    this.byTeam = new Map();
    // keyed: the rows carry their sort keys, so diffs can be applied and resumed from; rows read from a
    // scoreboard page or a top frame have ranks only.
    this.keyed = false;
    this.view = "";
    // frozen is whether the view hid verdicts at the last snapshot, page, top frame or diff, as the server
    // says; null before any.
    this.frozen = null;
  }

  // applySnapshot replaces the board with a snapshot's rows.
  applySnapshot(s) {
    this.seq = s.seq;
    this.view = s.view;
    this.frozen = s.frozen;
    this.#replace(s.rows, true);
    this.#rank(0, Infinity);
  }

  // replaceRanked replaces the board with rows that carry their ranks: a scoreboard page, or a top frame
  // (which says nothing of the view).
  replaceRanked(page) {
    this.seq = page.seq;
    if ("frozen" in page) this.frozen = page.frozen;
    if ("view" in page) this.view = page.view;
    this.#replace(page.rows, false);
    page.rows.forEach((r, i) => { r.pos = i; });
  }

  #replace(rows, keyed) {
    for (const r of rows) {
      const prev = this.byTeam.get(r.team_id);
      if (prev) r.was = prev.pos;
    }
    this.rows = rows;
    this.keyed = keyed;
    this.byTeam = new Map(rows.map((r) => [r.team_id, r]));
  }

  // applyDiff applies a diff and returns the teams whose rows it changed or removed (empty for a diff the
  // board is already past). It throws GapError for a diff that does not start at the board's sequence
  // number: its cells are the changes since its start, and applied to another state they could leave one
  // stale.
  applyDiff(d) {
    if (d.seq === this.seq && d.base_seq === this.seq) {
      // Nothing but whether the view hides verdicts: the clock froze it (or hid it until its end).
      if ("frozen" in d) this.frozen = d.frozen;
      return new Set();
    }
    if (d.seq <= this.seq) return new Set();
    if (!this.keyed || d.base_seq !== this.seq) throw new GapError(this.seq, d.base_seq);
    const listed = new Map(d.rows.map((r) => [r.team_id, r]));
    const out = new Set([...listed.keys(), ...(d.removed || [])]);
    if ("frozen" in d) this.frozen = d.frozen;
    // Out go the listed and removed rows, from the last position up, so each leaves the others' in place.
    const gone = [];
    for (const id of out) {
      const prev = this.byTeam.get(id);
      if (!prev) continue;
      gone.push(prev.pos);
      this.byTeam.delete(id);
      // A diff carries only the cells that changed of a row the client has: the others stay.
      const r = listed.get(id);
      if (r) {
        r.cells = mergeCells(prev.cells, r.cells);
        r.was = prev.pos;
      }
    }
    gone.sort((a, b) => b - a);
    for (const p of gone) this.rows.splice(p, 1);
    // In go the listed rows at their positions, in increasing order (past the end: at the end).
    let from = gone.length > 0 ? gone[gone.length - 1] : this.rows.length;
    let to = gone.length > 0 ? gone[0] : 0;
    for (const r of d.rows.slice().sort((x, y) => x.pos - y.pos)) {
      const p = Math.min(Math.max(r.pos, 0), this.rows.length);
      this.rows.splice(p, 0, r);
      this.byTeam.set(r.team_id, r);
      from = Math.min(from, p);
      to = Math.max(to, p);
    }
    this.seq = d.seq;
    this.#rank(from, to);
    return out;
  }

  // #rank sets positions and ranks from the order and the keys (equal keys share a rank), from position
  // from on: past position to, which the change did not touch, it stops at the first row whose position
  // and rank were already right, since every row after it is then right too.
  #rank(from, to) {
    const rows = this.rows;
    for (let i = from; i < rows.length; i++) {
      const r = rows[i];
      const rank = i > 0 && r.key === rows[i - 1].key ? rows[i - 1].rank : i + 1;
      if (i > to && r.pos === i && r.rank === rank) return;
      r.pos = i;
      r.rank = rank;
    }
  }
}

// mergeCells returns prev with the cells of changed in place of those of the same problem.
export function mergeCells(prev, changed) {
  const cells = prev.slice();
  for (const c of changed) {
    const i = cells.findIndex((x) => x.problem_id === c.problem_id);
    if (i < 0) cells.push(c);
    else cells[i] = c;
  }
  return cells;
}
