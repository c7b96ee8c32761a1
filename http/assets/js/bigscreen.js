// The big screen: the board scrolls by itself, pausing at the top and at the bottom, so a hall can read
// every row without anyone at the keyboard. Space pauses and resumes it.

const pixelsPerSecond = 40;
const pauseMillis = 6000;

// autoScroll scrolls the scroller until the function it returns is called.
export function autoScroll(scroller) {
  let paused = false;
  let stopped = false;
  let waitUntil = performance.now() + pauseMillis;
  let last = performance.now();
  let offset = scroller.scrollTop; // fractional: scrollTop keeps whole pixels only
  const onKey = (e) => {
    // A Space the board took already (a reveal step on the jury's big screen) is not a pause too.
    if (e.key === " " && !e.defaultPrevented && !(e.target instanceof HTMLInputElement)) {
      e.preventDefault();
      paused = !paused;
    }
  };
  document.addEventListener("keydown", onKey);
  const step = (now) => {
    if (stopped) return;
    const dt = now - last;
    last = now;
    const bottom = scroller.scrollHeight - scroller.clientHeight;
    if (!paused && now >= waitUntil && bottom > 0) {
      if (scroller.scrollTop >= bottom - 1) {
        scroller.scrollTop = offset = 0;
        waitUntil = now + pauseMillis;
      } else {
        if (Math.abs(scroller.scrollTop - offset) > 2) offset = scroller.scrollTop; // moved by hand
        offset = Math.min(bottom, offset + (pixelsPerSecond * Math.min(dt, 100)) / 1000);
        scroller.scrollTop = offset;
        if (offset >= bottom) waitUntil = now + pauseMillis;
      }
    }
    requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
  return () => {
    stopped = true;
    document.removeEventListener("keydown", onKey);
  };
}

// toggleFullscreen shows the page on the whole screen, or leaves it.
export function toggleFullscreen() {
  if (document.fullscreenElement) document.exitFullscreen();
  else document.documentElement.requestFullscreen().catch(() => {});
}
