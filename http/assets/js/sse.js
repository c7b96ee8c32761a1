// Server-sent events read with fetch(), which, unlike EventSource, can send an Authorization header.

const lineEnd = /\r\n|\r|\n/g;

// readEvents calls onEvent({event, id, data}) for each event of a text/event-stream body, onRetry with the
// server's reconnection delay, and onChunk for everything read (comments too: they tell the connection
// lives); it resolves when the body ends.
export async function readEvents(body, onEvent, onRetry, onChunk) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  let ev = { event: "", id: "", data: null };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    onChunk();
    // A snapshot of a big board is one line of megabytes: each chunk is searched once, not the whole line
    // again for every chunk.
    let from = buf.length;
    buf += value;
    let start = 0;
    for (;;) {
      lineEnd.lastIndex = Math.max(from - 1, start);
      const m = lineEnd.exec(buf);
      // A "\r" that ends the chunk may be the first half of "\r\n": wait for the next chunk.
      if (!m || (m[0] === "\r" && m.index === buf.length - 1)) break;
      const line = buf.slice(start, m.index);
      start = from = m.index + m[0].length;
      if (line === "") {
        if (ev.data !== null) onEvent(ev);
        ev = { event: "", id: "", data: null };
      } else if (!line.startsWith(":")) {
        field(ev, line, onRetry);
      }
    }
    buf = buf.slice(start);
  }
}

function field(ev, line, onRetry) {
  const colon = line.indexOf(":");
  const name = colon < 0 ? line : line.slice(0, colon);
  let value = colon < 0 ? "" : line.slice(colon + 1);
  if (value.startsWith(" ")) value = value.slice(1);
  switch (name) {
    case "event": ev.event = value; break;
    case "id": ev.id = value; break;
    case "data": ev.data = ev.data === null ? value : ev.data + "\n" + value; break;
    case "retry": if (/^\d+$/.test(value)) onRetry(Number(value)); break;
  }
}
