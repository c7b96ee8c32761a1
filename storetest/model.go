package storetest

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"rankd"
)

// model is the event log and submissions list as the interfaces document them, kept the plainest way:
// the reference the store is compared with on random traffic.
type model struct {
	log    map[string][]rankd.LogEntry
	tokens map[string]map[string]int64
	latest map[string]map[modelKey]rankd.LogEntry // an object's latest version, with its Pos
	// every version of a submission or judgement, by hash: the position of its first
	versions map[string]map[modelVersion]int64
	subs     map[string]map[string]rankd.SubmissionRecord
}

type modelKey struct {
	typ rankd.EventType
	id  string
}

type modelVersion struct {
	modelKey
	hash string
}

func newModel() *model {
	return &model{
		log:      make(map[string][]rankd.LogEntry),
		tokens:   make(map[string]map[string]int64),
		latest:   make(map[string]map[modelKey]rankd.LogEntry),
		versions: make(map[string]map[modelVersion]int64),
		subs:     make(map[string]map[string]rankd.SubmissionRecord),
	}
}

// append does what Append documents; refuse says which entries accept refuses.
func (m *model) append(contestID string, entries []rankd.LogEntry, refuse func(i int) bool) (results []rankd.AppendResult, accepted []int) {
	if m.tokens[contestID] == nil {
		m.tokens[contestID] = make(map[string]int64)
		m.latest[contestID] = make(map[modelKey]rankd.LogEntry)
		m.versions[contestID] = make(map[modelVersion]int64)
		m.subs[contestID] = make(map[string]rankd.SubmissionRecord)
	}
	tokens, latest, versions, subs := m.tokens[contestID], m.latest[contestID], m.versions[contestID], m.subs[contestID]
	for i, e := range entries {
		key := modelKey{e.Event.Type, e.Event.ID}
		if pos := tokens[e.Token]; e.Token != "" && pos > 0 {
			// A token names one event: the same object's, or another's (refused).
			if owner := m.log[contestID][pos-1].Event; (modelKey{owner.Type, owner.ID}) == key {
				results = append(results, rankd.AppendResult{Pos: pos, Duplicate: true})
			} else {
				results = append(results, rankd.AppendResult{Err: rankd.ErrTokenTaken})
			}
			continue
		}
		// A repeat's token, new to the log, names the event it repeats from then on.
		repeat := func(pos int64) {
			results = append(results, rankd.AppendResult{Pos: pos, Duplicate: true})
			if e.Token != "" {
				tokens[e.Token] = pos
			}
		}
		if v, ok := latest[key]; ok && e.Hash != "" && v.Hash == e.Hash {
			repeat(v.Pos)
			continue
		}
		// Submissions and judgements only move forward: any earlier version is a repeat too, unless it
		// deletes or re-creates its object.
		forward := e.Event.Type.MovesForward()
		flips := e.Deletion != "" && (e.Hash == e.Deletion) != (latest[key].Hash == e.Deletion)
		if pos := versions[modelVersion{key, e.Hash}]; forward && e.Hash != "" && !flips && !e.Own && pos > 0 {
			repeat(pos)
			continue
		}
		accepted = append(accepted, i)
		if refuse(i) {
			results = append(results, rankd.AppendResult{Err: errRefused})
			continue
		}
		e.Pos = int64(len(m.log[contestID]) + 1)
		m.log[contestID] = append(m.log[contestID], e)
		latest[key] = e
		if v := (modelVersion{key, e.Hash}); forward && e.Hash != "" && versions[v] == 0 {
			versions[v] = e.Pos // a repeat is answered with the first
		}
		if e.Token != "" {
			tokens[e.Token] = e.Pos
		}
		if e.Event.Type == rankd.EventSubmission {
			if e.Event.Delete {
				delete(subs, e.Event.ID)
			} else if s := e.Event.Submission; s != nil {
				subs[s.ID] = rankd.SubmissionRecord{ID: s.ID, TeamID: s.TeamID, ProblemID: s.ProblemID, Time: s.Time, Pos: e.Pos}
			}
		}
		results = append(results, rankd.AppendResult{Pos: e.Pos})
	}
	return results, accepted
}

// submissions returns a contest's submissions in list order.
func (m *model) submissions(contestID string) []rankd.SubmissionRecord {
	var list []rankd.SubmissionRecord
	for _, s := range m.subs[contestID] {
		list = append(list, s)
	}
	slices.SortFunc(list, func(a, b rankd.SubmissionRecord) int {
		return cmp.Or(cmp.Compare(a.Time, b.Time), cmp.Compare(a.ID, b.ID))
	})
	return list
}

// testAppendModel: random calls of every size, dense in duplicates (by token, by content, within a call
// and across calls), deletions and refusals, give what the model gives.
func testAppendModel(t *testing.T, s Store) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := newModel()
	contests := []string{"c1", "c2"}
	sizes := []int{1, 2, 7, 8, 9, 63, 64, 65, 100, 130, 500, 1000}
	for c := range 40 {
		contestID := contests[rng.IntN(len(contests))]
		entries := make([]rankd.LogEntry, sizes[rng.IntN(len(sizes))])
		for i := range entries {
			entries[i] = randomEntry(rng)
		}
		refused := make(map[int]bool)
		for i := range entries {
			if rng.IntN(10) == 0 {
				refused[i] = true
			}
		}
		wantRes, wantAccepted := m.append(contestID, entries, func(i int) bool { return refused[i] })
		var accepted []int
		res, err := s.Append(context.Background(), contestID, entries, func(i int) error {
			accepted = append(accepted, i)
			if refused[i] {
				return errRefused
			}
			return nil
		})
		if err != nil {
			t.Fatalf("call %d: Append: %v", c, err)
		}
		checkResults(t, fmt.Sprintf("call %d (%d entries)", c, len(entries)), res, wantRes)
		if !slices.Equal(accepted, wantAccepted) {
			t.Fatalf("call %d: accept called with %v, want %v", c, accepted, wantAccepted)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	for _, contestID := range contests {
		got, want := MustReplay(t, s, contestID, 0), m.log[contestID]
		if len(got) != len(want) {
			t.Fatalf("%s: got %d entries, want %d", contestID, len(got), len(want))
		}
		for i := range want {
			g, w := got[i], want[i]
			if g.Pos != w.Pos || string(g.Data) != string(w.Data) || g.Hash != w.Hash || g.Token != w.Token {
				t.Fatalf("%s: entry %d: got {%d %q %s %q}, want {%d %q %s %q}", contestID, i,
					g.Pos, g.Data, g.Hash, g.Token, w.Pos, w.Data, w.Hash, w.Token)
			}
		}
		gotSubs := MustSubmissions(t, s, contestID, rankd.SubmissionFilter{})
		if wantSubs := m.submissions(contestID); !slices.Equal(gotSubs, wantSubs) {
			t.Errorf("%s: got submissions %+v, want %+v", contestID, gotSubs, wantSubs)
		}
	}
}

// randomEntry returns an entry drawn from small pools of objects, versions and tokens, so that duplicates
// of every kind are frequent.
func randomEntry(rng *rand.Rand) rankd.LogEntry {
	id := fmt.Sprint(rng.IntN(40))
	version := rng.IntN(3)
	var e rankd.LogEntry
	switch rng.IntN(4) {
	case 0:
		e = Submission(id, fmt.Sprint("t", version), string(rune('A'+version)),
			time.Duration(version)*time.Minute+time.Duration(rng.IntN(3))*time.Millisecond)
	case 1:
		e = Delete(rankd.EventSubmission, id)
	case 2:
		e = Entry(rankd.EventJudgement, id, fmt.Sprint("judgement ", id, " version ", version))
	default:
		e = Entry(rankd.EventProblem, id, fmt.Sprint("problem ", id, " version ", version))
	}
	if rng.IntN(8) == 0 {
		e = Own(e)
	}
	if rng.IntN(2) == 0 {
		e = WithToken(e, fmt.Sprint("tok", rng.IntN(2000)))
		if t := e.Event.Type; t == rankd.EventSubmission || t == rankd.EventJudgement {
			e = Marked(e) // as the engine marks it
		}
	}
	return e
}
