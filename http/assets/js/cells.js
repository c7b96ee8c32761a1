// What a row and a cell show, by the contest's rules: text and the class that colours it. No DOM here.

// The result of a cell, as a class: solved (and first to solve), partial (OI, IOI), failed, pending, or
// empty.
export function cellView(rules, problem, c) {
  const judged = c.judged || 0;
  const pending = c.pending || 0;
  const tries = judged + pending;
  const triesText = pending > 0 ? (judged > 0 ? `${judged} + ${pending}` : `${pending}`) : plural(judged, "try", "tries");
  const label = [problem.label + ":"];
  let cls = "";
  let top = "";
  if (rules === "icpc" || rules === "ctf") {
    if (c.solved) {
      cls = c.first_to_solve ? "solved first" : "solved";
      top = rules === "ctf" ? formatScore(c.score) : String(Math.floor((c.time_ms || 0) / 60000));
      label.push(c.first_to_solve ? "first to solve" : "solved", rules === "ctf" ? `for ${top} points` : `at minute ${top}`);
    } else if (pending > 0) {
      cls = "pending";
      top = "?";
      label.push("pending");
    } else if (judged > 0) {
      cls = "failed";
      label.push("not solved");
    }
  } else if (tries > 0) {
    const score = c.score || 0;
    top = formatScore(score) + (pending > 0 ? "?" : "");
    if (pending > 0) cls = "pending";
    else if (fullMarks(problem) && score >= fullMarks(problem)) cls = "solved";
    else cls = score > 0 ? "partial" : "failed";
    if (c.first_to_solve) cls += " first";
    label.push(`${formatScore(score)} points`, pending > 0 ? "pending" : "");
  }
  if (tries === 0) return { cls: "", top: "", bottom: "", label: `${problem.label}: no submissions` };
  const counts = [plural(judged, "try", "tries"), pending > 0 ? `${pending} pending` : ""].filter(Boolean).join(", ");
  return { cls, top, bottom: triesText, label: `${label.filter(Boolean).join(" ")}, ${counts}` };
}

// sameCell reports whether two cells show the same result: the jury view marks those the public sees
// otherwise.
export function sameCell(a, b) {
  return !!a.solved === !!b.solved && !!a.first_to_solve === !!b.first_to_solve && (a.judged || 0) === (b.judged || 0) &&
    (a.pending || 0) === (b.pending || 0) && (a.time_ms || 0) === (b.time_ms || 0) && (a.score || 0) === (b.score || 0);
}

// totals returns the texts of the total columns: solved and penalty (ICPC), or the score.
export function totals(rules, row) {
  if (rules === "icpc") return [String(row.solved || 0), String(row.penalty || 0)];
  return [formatScore(row.score)];
}

export function totalHeads(rules) {
  return rules === "icpc" ? [["Solved", "Problems solved"], ["Time", "Penalty time in minutes"]] : [["Score", "Total score"]];
}

// formatScore shows a score to the millionth, to which the server rounds totals: scores that rank apart show
// apart, and float noise (0.30000000000000004) goes.
export function formatScore(s) {
  return String(Number((s || 0).toFixed(6)));
}

// fullMarks is a problem's maximum score: max_score, else the sum of its subtasks' maximums (as /problems
// counts solves); 0 when unknown.
function fullMarks(problem) {
  if (problem.max_score) return problem.max_score;
  return Number((problem.rankd?.subtasks || []).reduce((a, b) => a + b, 0).toFixed(6));
}

function plural(n, one, many) {
  return n === 0 ? "" : `${n} ${n === 1 ? one : many}`;
}
