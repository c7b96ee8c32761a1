package http_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"rankd"
	"rankd/engine"
	"rankd/sqlite"
)

// fullAfter is a store whose disk fills up once it has stored limit entries since it was armed: every
// append after that fails, as "database or disk is full" does.
type fullAfter struct {
	*sqlite.DB
	armed  atomic.Bool
	stored atomic.Int64
	limit  int64
}

func (s *fullAfter) Append(ctx context.Context, contestID string, entries []rankd.LogEntry, accept func(int) error) ([]rankd.AppendResult, error) {
	if !s.armed.Load() {
		return s.DB.Append(ctx, contestID, entries, accept)
	}
	if s.stored.Load() >= s.limit {
		return nil, errUnreachable
	}
	res, err := s.DB.Append(ctx, contestID, entries, accept)
	if err == nil {
		s.stored.Add(int64(len(entries)))
	}
	return res, err
}

// A large request (more parts than wait for their commit at once, commitWindow) whose disk fills up after
// ten of its parts were committed says which of its events are stored, as a request of two parts does
// (TestIngestPartlyStoredSaysSo): the failure reached the sender through the wait for the window, and the
// answer said "the events could not be stored; retry" with 9,500 of them stored. Seen with a 6 MB file
// system and the whole of a generated feed in one POST: 70,000 events stored, the answer saying none was.
func TestIngestPartlyStoredBeyondTheWindowSaysSo(t *testing.T) {
	store := &fullAfter{limit: 9500} // ten parts of 1,000 lines, one in twenty malformed
	e := MustOpenWith(t, options{wrap: func(db *sqlite.DB) engine.Store { store.DB = db; return store }})
	e.server.MaxBody = 4 << 20 // 20 parts of 1,000 lines, about 2 MB
	e.MustContest(t)
	store.armed.Store(true)
	body := strings.Join(submissionLines(100, 20000), "\n") + "\n"
	req, err := http.NewRequest("POST", e.URL+"/api/v1/contests/c1/events", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+judgeToken)
	req.Header.Set("Content-Type", "application/x-ndjson")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res struct{ Code, Message string }
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
		t.Fatal(err)
	}
	if store.stored.Load() == 0 {
		t.Fatalf("nothing was stored before the disk filled up (%d %+v): the test did not test anything", resp.StatusCode, res)
	}
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(res.Message, "are stored") {
		t.Errorf("got %d %+v with %d events of the request stored, want 503 saying before which line the events are stored",
			resp.StatusCode, res, store.stored.Load())
	}
}
