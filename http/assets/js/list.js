// The list of contests at /.

import { api, localTime, phaseNames } from "./contest.js";

const message = document.getElementById("message");
const table = document.getElementById("contests");

async function load() {
  let contests;
  try {
    contests = await api("/api/v1/contests");
  } catch (e) {
    message.textContent = `The contests could not be read: ${e.message}. Retrying…`;
    setTimeout(load, 5000);
    return;
  }
  if (contests.length === 0) {
    message.textContent = "There are no contests yet.";
    return;
  }
  message.hidden = true;
  table.hidden = false;
  table.tBodies[0].replaceChildren(...contests.map((c) => {
    const tr = document.createElement("tr");
    const link = document.createElement("a");
    link.href = `/contests/${encodeURIComponent(c.id)}`;
    link.textContent = c.name || c.id;
    const phase = document.createElement("span");
    phase.className = `phase ${c.phase}`;
    phase.textContent = phaseNames[c.phase] || c.phase;
    const cells = [link, phase, c.rules.toUpperCase(), c.start_time ? localTime(new Date(c.start_time)) : "not set",
      (c.duration || "").replace(/\.0*$/, ""), String(c.teams)];
    tr.append(...cells.map((x, i) => {
      const td = document.createElement(i === 0 ? "th" : "td");
      if (i === 0) td.scope = "row";
      td.append(x);
      return td;
    }));
    return tr;
  }));
}

load();
