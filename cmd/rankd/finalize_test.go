package main_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// finalStatus is a contest's finalization as the API reports it.
type finalStatus struct {
	State    string
	Attempts int
	Error    string
	Version  int64
}

// finalBoard is a contest's final standings as the API serves them.
type finalBoard struct {
	Version int64
	Pos     int64
	View    string
	Rows    []json.RawMessage
	Awards  []struct {
		ID      string   `json:"id"`
		TeamIDs []string `json:"team_ids"`
	}
}

// MustPostAdmin posts to url, without a body, with the admin token; the answer must have the status and
// is decoded into v.
func MustPostAdmin(tb testing.TB, url string, status int, v any) {
	tb.Helper()
	req, err := http.NewRequest("POST", url, bytes.NewReader(nil))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testAdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != status {
		tb.Fatalf("POST %s: got status %d, want %d", url, resp.StatusCode, status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		tb.Fatal(err)
	}
}

// The euc2025 feed finalized through the API: the final standings are the served board, their first-to-solve
// awards the feed's own; finalizing again changes nothing; a thousand readers at once cause one load.
func TestServeFinalizesEUC2025(t *testing.T) {
	path := feed(t, "euc2025")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := StartRankd(t, t.TempDir())
	for _, batch := range splitLines(data, 1000) {
		if _, err := postFeed(p.URL, "euc2025", batch); err != nil {
			t.Fatal(err)
		}
	}
	base := p.URL + "/api/v1/contests/euc2025/finalize"
	for round := 1; round <= 2; round++ {
		var st finalStatus
		MustPostAdmin(t, base, http.StatusAccepted, &st)
		eventually(t, "the finalization is done", func() string {
			MustGetJSON(t, base, testAdminToken, &st)
			if st.State != "done" {
				return fmt.Sprintf("state %s (%+v)", st.State, st)
			}
			return ""
		})
		if st.Version != 1 {
			t.Errorf("round %d: got version %d, want 1", round, st.Version)
		}
	}

	// A thousand readers at once, on a cold cache: one load.
	before := MustMetric(t, p.URL, `rankd_final_loads_total{source="store"}`)
	// On a machine slower than the burst (the race detector, other tests on the same cores), the server closes
	// connections whose request it did not get to read within its header timeout: those readers try again, as
	// a browser would. Any answer but the final standings fails.
	var wg sync.WaitGroup
	var retried atomic.Int32
	start := make(chan struct{})
	for range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			var f finalBoard
			err := getJSON(p.URL+"/api/v1/contests/euc2025/final", &f)
			for try := 1; try < 3 && errors.As(err, new(*url.Error)); try++ {
				retried.Add(1)
				err = getJSON(p.URL+"/api/v1/contests/euc2025/final", &f)
			}
			if err != nil || f.View != "public" || len(f.Rows) == 0 {
				t.Errorf("reader: got %d rows of view %q, %v; want the public's final standings", len(f.Rows), f.View, err)
			}
		}()
	}
	begin := time.Now()
	close(start)
	wg.Wait()
	if n := retried.Load(); n > 0 {
		t.Logf("%d readers tried again after the server closed their connection unread (the burst took %s)", n, time.Since(begin).Round(time.Millisecond))
	}
	// The server reads the standings again after 5 s: a burst that lasts longer (a slow machine, the race
	// detector) has one more load per 5 s.
	if loads, want := MustMetric(t, p.URL, `rankd_final_loads_total{source="store"}`)-before, 1+int(time.Since(begin)/(5*time.Second)); loads > float64(want) {
		t.Errorf("1,000 readers at once on a cold cache: got %v loads, want %d", loads, want)
	}
	// The final public board is the served one.
	var final finalBoard
	MustGetJSON(t, p.URL+"/api/v1/contests/euc2025/final", "", &final)
	var served struct{ Rows []json.RawMessage }
	MustGetJSON(t, p.URL+"/api/v1/contests/euc2025/scoreboard", "", &served)
	if final.View != "public" || len(final.Rows) != 53 || !reflect.DeepEqual(final.Rows, served.Rows) {
		t.Errorf("final public board: got %d rows (view %s), want the served board's %d", len(final.Rows), final.View, len(served.Rows))
	}
	// Its first-to-solve awards are the contest system's own.
	_, feedAwards := MustLoad(t, path)
	want := map[string][]string{}
	for _, a := range feedAwards {
		if strings.HasPrefix(a.ID, "first-to-solve-") {
			want[a.ID] = a.TeamIDs
		}
	}
	got := map[string][]string{}
	for _, a := range final.Awards {
		if strings.HasPrefix(a.ID, "first-to-solve-") {
			got[a.ID] = a.TeamIDs
		}
	}
	if len(want) != 11 || !reflect.DeepEqual(got, want) {
		t.Errorf("first-to-solve awards: got %v, want the feed's %v", got, want)
	}

	// The finalization's state is in the metrics; the finalization that the server files at the contest's end
	// (here within 5 s of its creation, the end being past) may come and go meanwhile.
	eventually(t, "the metrics say done", func() string {
		if v := MustMetric(t, p.URL, `rankd_finalize_state{contest="euc2025",state="done"}`); v != 1 {
			return fmt.Sprintf("rankd_finalize_state done: got %v, want 1", v)
		}
		return ""
	})
}

// rankd finalize asks a running server and waits for the result; a contest it does not know, or that has not
// ended, is an error.
func TestFinalizeCommand(t *testing.T) {
	p := StartRankd(t, t.TempDir(), "--demo")
	data, err := os.ReadFile(feed(t, "euc2025"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := postFeed(p.URL, "euc2025", data); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RANKD_ADMIN_TOKEN", testAdminToken)
	out := MustRun(t, "finalize", "--server", p.URL, "--contest", "euc2025", "--wait", "30s")
	var st finalStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.State != "done" || st.Version != 1 {
		t.Errorf("got %q (%v), want done at version 1", out, err)
	}
	if _, _, err := run("finalize", "--server", p.URL, "--contest", "nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown contest: got %v, want an error naming it", err)
	}
	eventually(t, "the demo contest exists", func() string {
		if err := getJSON(p.URL+"/api/v1/contests/demo", &json.RawMessage{}); err != nil {
			return err.Error()
		}
		return ""
	})
	if _, _, err := run("finalize", "--server", p.URL, "--contest", "demo"); err == nil || !strings.Contains(err.Error(), "after its end") {
		t.Errorf("a running contest: got %v, want an error saying it is finalized after its end", err)
	}
	t.Setenv("RANKD_ADMIN_TOKEN", "")
	if _, _, err := run("finalize", "--server", p.URL, "--contest", "euc2025"); err == nil {
		t.Error("without a token: got no error")
	}
}
