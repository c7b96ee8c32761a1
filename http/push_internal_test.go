package http

import (
	"slices"
	"strconv"
	"testing"

	"rankd"
)

// A follower whose queue is full is dropped at once: the others and the board never wait for it.
func TestSlowFollowerIsDropped(t *testing.T) {
	h := &hub{contests: map[string]*contestChannels{}, kick: make(chan struct{}, 1)}
	ch := &channel{view: rankd.PublicView, subs: map[*follower]struct{}{}}
	slow := &follower{events: make(chan *message, 2), dropped: make(chan struct{})}
	fast := &follower{events: make(chan *message, 8), dropped: make(chan struct{})}
	ch.subs[slow], ch.subs[fast] = struct{}{}, struct{}{}
	for i := range 3 {
		mustDeliver(t, h, ch, message{seq: uint64(i + 1), base: uint64(i)})
		<-fast.events // the fast one keeps up
	}
	select {
	case <-slow.dropped:
	default:
		t.Fatal("the slow follower was not dropped")
	}
	if _, ok := ch.subs[slow]; ok {
		t.Error("the slow follower is still subscribed")
	}
	if _, ok := ch.subs[fast]; !ok {
		t.Error("the fast follower was dropped")
	}
}

// mustDeliver sends m to the followers of ch as the frame maker does.
func mustDeliver(tb testing.TB, h *hub, ch *channel, m message) {
	tb.Helper()
	h.mu.Lock()
	h.deliver(nil, ch, m)
	h.mu.Unlock()
	h.fanOut()
}

func TestResume(t *testing.T) {
	window := []message{{seq: 12, base: 10}, {seq: 15, base: 12}, {seq: 20, base: 15}}
	tests := []struct {
		from, last uint64
		want       int // frames resent; -1: not resumable
	}{
		{20, 20, 0},
		{15, 20, 1},
		{13, 20, -1}, // not a frame's boundary: the frames carry cells changed since their start
		{10, 20, 3},
		{9, 20, -1}, // older than the window
	}
	for _, tt := range tests {
		got, ok := framesAfter(window, tt.from, tt.last)
		if !ok && tt.want != -1 || ok && len(got) != tt.want {
			t.Errorf("resume from %d: got %d frames (ok %v), want %d", tt.from, len(got), ok, tt.want)
		}
	}
}

func TestChangedSince(t *testing.T) {
	window := []message{{seq: 12, base: 10, teams: []string{"a", "c"}}, {seq: 15, base: 12, teams: []string{"b", "c"}},
		{seq: 20, base: 15, teams: []string{"a"}}}
	tests := []struct {
		from uint64
		want []string // nil: not within a frame
	}{
		{11, []string{"a", "b", "c"}},
		{13, []string{"a", "b", "c"}},
		{17, []string{"a"}},
		{12, nil}, // a frame's boundary: the frames themselves
		{15, nil},
		{20, nil},
		{9, nil}, // older than the window
		{21, nil},
	}
	for _, tt := range tests {
		got, ok := changedSince(window, tt.from)
		if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
			t.Errorf("changed since %d: got %q (ok %v), want %q", tt.from, got, ok, tt.want)
		}
	}
}

// The page cache holds a bounded number of bytes however many different pages are asked for.
func TestPageCacheIsBounded(t *testing.T) {
	var c pageCache
	body := make([]byte, 1<<20)
	for i := range 1000 {
		c.put(strconv.Itoa(i), "v", body)
		if held := c.size + c.prevSize; held > maxCachedBytes {
			t.Fatalf("after %d pages: %d bytes held, more than %d", i+1, held, maxCachedBytes)
		}
	}
	c.put("same", "v1", body)
	before := c.size
	c.put("same", "v2", body)
	if c.size != before && len(c.m) > 1 {
		t.Errorf("replacing a page: got %d bytes, want %d", c.size, before)
	}
}

// A team's view keeps no snapshot for later clients: it is one team's, and thousands kept would be gigabytes.
func TestTeamSnapshotsNotKept(t *testing.T) {
	h := &hub{}
	for _, v := range []rankd.View{rankd.PublicView, rankd.JuryView, rankd.TeamView("t1")} {
		h.keepSnapshot("c", v, 1, false, message{seq: 1, data: []byte("x")})
	}
	_, team := h.snaps[snapKey{"c", rankd.TeamView("t1")}]
	_, public := h.snaps[snapKey{"c", rankd.PublicView}]
	if team || !public || len(h.snaps) != 2 {
		t.Errorf("got snapshots kept %v, want the public's and the jury's only", h.snaps)
	}
}

func TestSentRows(t *testing.T) {
	cell := func(p string, judged int) cellJSON { return cellJSON{ProblemID: p, Judged: judged} }
	var s sentRows
	steps := []struct {
		name    string
		slot    int
		cells   []cellJSON // nil: the row leaves the view
		seq     uint64
		want    []string // problems of the cells the frame carries
		changed []int    // slots listed after seq 2
	}{
		{"new row: whole", 3, []cellJSON{cell("A", 0), cell("B", 0)}, 2, []string{"A", "B"}, nil},
		{"one cell changed", 3, []cellJSON{cell("A", 1), cell("B", 0)}, 4, []string{"A"}, []int{3}},
		{"nothing changed", 3, []cellJSON{cell("A", 1), cell("B", 0)}, 5, []string{}, []int{3}},
		{"another row", 0, []cellJSON{cell("A", 0), cell("B", 2)}, 6, []string{"A", "B"}, []int{0, 3}},
		{"left the view", 3, nil, 7, nil, []int{0, 3}},
		{"back: whole", 3, []cellJSON{cell("A", 1), cell("B", 0)}, 8, []string{"A", "B"}, []int{0, 3}},
		{"a problem added: whole", 0, []cellJSON{cell("A", 0), cell("B", 2), cell("C", 0)}, 9, []string{"A", "B", "C"}, []int{0, 3}},
		{"and the others too", 3, []cellJSON{cell("A", 1), cell("B", 0), cell("C", 0)}, 10, []string{"A", "B", "C"}, []int{0, 3}},
	}
	for _, st := range steps {
		if st.cells == nil {
			s.removed(st.slot, st.seq)
		} else {
			var got []string
			for _, c := range s.listed(st.slot, st.cells, st.seq) {
				got = append(got, c.ProblemID)
			}
			if !slices.Equal(got, st.want) && len(got)+len(st.want) > 0 {
				t.Errorf("%s: got cells %q, want %q", st.name, got, st.want)
			}
		}
		var changed []int
		for i := range 5 {
			if s.changedSince(i, 2) {
				changed = append(changed, i)
			}
		}
		if !slices.Equal(changed, st.changed) {
			t.Errorf("%s: got rows changed since 2 %v, want %v", st.name, changed, st.changed)
		}
	}
}

// StreamFollowers returns how many clients follow each view of a contest, the channels kept without
// followers included (with 0), for the tests of package http_test.
func (s *Server) StreamFollowers(contestID string) map[string]int {
	s.push.mu.Lock()
	defer s.push.mu.Unlock()
	out := map[string]int{}
	if cc := s.push.contests[contestID]; cc != nil {
		for v, ch := range cc.views {
			out[v.String()] = len(ch.subs)
		}
	}
	return out
}

// Frames for many followers are sent by several goroutines at once: each follower still gets every frame, in
// the order they were made, and one whose queue overflows is dropped.
func TestFanOutKeepsEachFollowersOrder(t *testing.T) {
	h := &hub{contests: map[string]*contestChannels{}, kick: make(chan struct{}, 1)}
	ch := &channel{view: rankd.PublicView, subs: map[*follower]struct{}{}}
	var followers []*follower
	for i := range 3 * fanOutPart {
		f := &follower{id: uint64(i), events: make(chan *message, 8), dropped: make(chan struct{})}
		followers = append(followers, f)
		ch.subs[f] = struct{}{}
	}
	slow := &follower{events: make(chan *message, 2), dropped: make(chan struct{})}
	ch.subs[slow] = struct{}{}
	h.mu.Lock()
	for i := range 5 {
		h.deliver(nil, ch, message{seq: uint64(i + 1), base: uint64(i)})
	}
	h.mu.Unlock()
	h.fanOut()
	for i, f := range followers {
		for want := uint64(1); want <= 5; want++ {
			if m := <-f.events; m.seq != want {
				t.Fatalf("follower %d: got frame %d, want %d", i, m.seq, want)
			}
		}
	}
	select {
	case <-slow.dropped:
	default:
		t.Error("the follower whose queue overflowed was not dropped")
	}
}
