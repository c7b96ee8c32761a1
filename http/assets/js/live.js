// Keeps a Board up to date: from the live stream while it works, reconnecting with Last-Event-ID after a
// drop or a missed frame, and by polling the scoreboard (with its ETag) after repeated failures, trying
// the stream again now and then.

import { GapError } from "./model.js";
import { readEvents } from "./sse.js";

// Failures in a row after which the feed polls, and how long it polls before it tries the stream again.
const failuresBeforePolling = 3;
const pollSpell = 30000;
const pollEvery = 3000;
// The server sends a comment every 15 s on an idle stream: a longer silence is a dead connection.
const silenceLimit = 45000;

// FatalError is an answer that retrying does not change: a refused token, an unknown contest.
export class FatalError extends Error {
  constructor(status, body) {
    super(body && body.message ? body.message : `HTTP ${status}`);
    this.status = status;
    this.code = body && body.code;
  }
}

export class Feed {
  // streamURL and pollURL are the stream's and the scoreboard page's addresses; top, when set, reads the
  // big-screen channel (top events of whole rows) instead of snapshot and diffs. onFrame(changed, started)
  // is called after each change of the board (changed: the teams a diff touched, or null when every row may
  // have; started: the performance.now() at which the frame began to be applied);
  // onState(state, detail) with "connecting", "live", "reconnecting", "polling" or "error".
  constructor({ board, streamURL, pollURL, token, top, onFrame, onState }) {
    Object.assign(this, { board, streamURL, pollURL, token, top, onFrame, onState });
    this.retry = 2000;
    this.etag = "";
    this.stopped = false;
    this.abort = null;
  }

  start() {
    this.#run();
    return this;
  }

  stop() {
    this.stopped = true;
    if (this.abort) this.abort.abort();
  }

  async #run() {
    let failures = 0;
    let first = true;
    while (!this.stopped) {
      if (failures >= failuresBeforePolling) {
        try {
          await this.#pollFor(pollSpell);
        } catch (e) {
          if (this.#fatal(e)) return;
        }
        failures = failuresBeforePolling - 1; // one more failure and it polls again
        continue;
      }
      this.onState(first ? "connecting" : "reconnecting");
      first = false;
      let gap = false;
      try {
        if (await this.#follow()) failures = 0;
        failures++;
      } catch (e) {
        if (this.#fatal(e)) return;
        gap = e instanceof GapError;
        failures = e.status === 503 ? failuresBeforePolling : failures + 1;
      }
      if (this.stopped) return;
      // A missed frame is made up at once; a refused stream (503: too many) is polled for at once.
      if (!gap && failures < failuresBeforePolling) await sleep(this.retry * (0.75 + Math.random() / 2));
    }
  }

  #fatal(e) {
    if (this.stopped) return true;
    if (!(e instanceof FatalError)) return false;
    this.onState("error", e);
    return true;
  }

  // #follow reads one connection of the stream until it ends; it reports whether a frame came.
  async #follow() {
    this.abort = new AbortController();
    const headers = this.#headers({ Accept: "text/event-stream" });
    const url = new URL(this.streamURL, location.href);
    if (!this.top && this.board.keyed) headers["Last-Event-ID"] = String(this.board.seq);
    let silence;
    const alive = () => {
      clearTimeout(silence);
      silence = setTimeout(() => this.abort.abort(), silenceLimit);
    };
    alive();
    let framed = false;
    try {
      const resp = await fetch(url, { headers, signal: this.abort.signal, cache: "no-store" });
      await check(resp);
      await readEvents(resp.body, (ev) => {
        this.#apply(ev);
        if (!framed) this.onState("live");
        framed = true;
      }, (ms) => { this.retry = ms; }, alive);
    } catch (e) {
      if (e.name !== "AbortError" || this.stopped) throw e;
    } finally {
      clearTimeout(silence);
      this.abort.abort(); // a missed frame leaves the connection open otherwise
    }
    return framed;
  }

  #apply(ev) {
    const started = performance.now();
    const data = JSON.parse(ev.data);
    switch (ev.event) {
      case "snapshot":
        this.board.applySnapshot(data);
        this.onFrame(null, started);
        break;
      case "diff": {
        const frozen = this.board.frozen;
        const changed = this.board.applyDiff(data);
        if (changed.size > 0 || this.board.frozen !== frozen) this.onFrame(changed, started);
        break;
      }
      case "top":
        this.board.replaceRanked(data);
        this.onFrame(null, started);
        break;
      case "error":
        throw new FatalError(0, data);
    }
  }

  // #pollFor reads the scoreboard every few seconds for a while. While the server cannot be reached the
  // board is not being read, which the state says; once it answers again after that (a restart), the
  // stream is tried at once.
  async #pollFor(ms) {
    const until = Date.now() + ms;
    let away = false;
    while (!this.stopped && Date.now() < until) {
      try {
        await this.#poll();
        if (away) return;
        this.onState("polling");
      } catch (e) {
        if (e instanceof FatalError || this.stopped) throw e;
        away = true;
        this.onState("reconnecting");
      }
      await sleep(pollEvery);
    }
  }

  async #poll() {
    this.abort = new AbortController();
    const headers = this.#headers({ Accept: "application/json" });
    if (this.etag) headers["If-None-Match"] = this.etag;
    const resp = await fetch(new URL(this.pollURL, location.href), { headers, signal: this.abort.signal, cache: "no-store" });
    if (resp.status === 304) return;
    await check(resp);
    const started = performance.now();
    const page = await resp.json();
    this.etag = resp.headers.get("ETag") || "";
    this.board.replaceRanked(page);
    this.onFrame(null, started);
  }

  #headers(h) {
    if (this.token) h.Authorization = "Bearer " + this.token;
    return h;
  }
}

// check throws for an answer that is not a success: FatalError for those that retrying does not change.
async function check(resp) {
  if (resp.ok) return;
  let body = null;
  try {
    body = await resp.json();
  } catch {
    // Not rankd's JSON (a proxy's page): the status says enough.
  }
  if ([400, 401, 403, 404].includes(resp.status)) throw new FatalError(resp.status, body);
  const e = new Error(body && body.message ? body.message : `HTTP ${resp.status}`);
  e.status = resp.status;
  throw e;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
