package http

import (
	"testing"
	"time"

	"rankd"
)

// A channel whose last follower was dropped as too slow (its queue full) lingers as when it leaves:
// the frame maker took its zero idle time for long ago and let it go at once, and a team's page (its view's
// only follower) whose network stalled long enough to fill the queue reconnected to a snapshot.
func TestDroppedFollowerChannelLingers(t *testing.T) {
	h := &hub{contests: map[string]*contestChannels{}, kick: make(chan struct{}, 1), tick: 100 * time.Millisecond}
	v := rankd.View{Kind: rankd.ViewTeam, TeamID: "t3"}
	f := &follower{events: make(chan *message, 1), dropped: make(chan struct{})}
	f.events <- &message{seq: 1} // its queue is full
	ch := &channel{view: v, dirty: map[string]struct{}{}, subs: map[*follower]struct{}{f: {}}, seq: 1, bounds: []uint64{1}}
	cc := &contestChannels{views: map[rankd.View]*channel{v: ch}, teamPublic: map[string]struct{}{}, teams: 1, slots: teamSlots{}}
	h.contests["c1"] = cc

	h.outbox = []delivery{{ch: ch, m: &message{seq: 2, base: 1}, to: []*follower{f}}}
	h.fanOut() // too slow: dropped
	<-f.dropped

	var wait time.Duration
	h.mu.Lock()
	h.letGo("c1", cc, time.Now().Add(h.tick), &wait) // the next tick's flush, before the handler unsubscribes
	h.mu.Unlock()
	if cc.views[v] == nil {
		t.Errorf("the channel whose only follower was dropped as slow was let go at once, not after %v", DefaultWindow*h.tick)
	}

	h.unsubscribe("c1", v, f) // the handler, later
}
