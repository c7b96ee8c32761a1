package http

import (
	"testing"

	"rankd"
)

// Review: a follower whose queue was full for one frame of a fanOut batch is dropped only when the batch
// ends; meanwhile a later frame of the same batch for it is still sent (queued, or written directly) if its
// goroutine drained the queue in between. The client then gets frame 2 (base 1) without frame 1: a gap, and
// its Last-Event-ID moves past the missed frame. The old code (send under h.mu) removed it from ch.subs at
// once, so frame 2 never went to it.
func TestReviewFanOutSendsPastAFrameItCouldNotQueue(t *testing.T) {
	h := &hub{contests: map[string]*contestChannels{}, kick: make(chan struct{}, 1)}
	ch := &channel{view: rankd.PublicView, subs: map[*follower]struct{}{}}
	other := &channel{view: rankd.JuryView, subs: map[*follower]struct{}{}}

	slow := &follower{id: 1, events: make(chan *message, 2), dropped: make(chan struct{})}
	filler := &message{seq: 0}
	slow.queue(filler)
	slow.queue(filler) // full: the client is behind
	ch.subs[slow] = struct{}{}

	// Another follower, served by the same goroutine of fanOut between the two frames: the moment the slow
	// follower's stream goroutine takes its queue and writes it (simulated in granted, which try calls).
	drained := false
	g := &follower{id: 2, events: make(chan *message, 8), dropped: make(chan struct{}),
		out: &directOut{sw: &streamWriter{}, granted: func() bool {
			for len(slow.events) > 0 {
				<-slow.events
				slow.queued.Add(-1)
			}
			drained = true
			return false // not granted: g's frame is queued, no socket needed
		}}}
	other.subs[g] = struct{}{}

	f1 := &message{seq: 1, base: 0}
	f2 := &message{seq: 2, base: 1}
	h.outbox = []delivery{
		{ch: ch, m: f1, to: []*follower{slow}},
		{ch: other, m: &message{seq: 7, base: 6}, to: []*follower{g}},
		{ch: ch, m: f2, to: []*follower{slow}},
	}
	h.fanOut()
	if !drained {
		t.Fatal("the scenario did not run")
	}
	select {
	case <-slow.dropped:
	default:
		t.Fatal("the follower whose queue was full for frame 1 was not dropped")
	}
	for len(slow.events) > 0 {
		if m := <-slow.events; m == f2 {
			t.Errorf("frame 2 (base 1) was queued for a follower that never got frame 1: its stream's goroutine " +
				"writes it before it sees dropped, a gap, and the client's Last-Event-ID skips frame 1")
		}
	}
}
