package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	main "rankd/cmd/rankd"
)

// cancelOn is a writer that cancels a context once what is written to it holds a text.
type cancelOn struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	text   string
	cancel context.CancelFunc
}

func (w *cancelOn) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.text) {
		w.cancel()
	}
	return len(p), nil
}

// importCounts reads the counts of the line rankd import ends with.
func importCounts(tb testing.TB, out string) (lines, accepted, duplicates, rejected int) {
	tb.Helper()
	m := regexp.MustCompile(`: (\d+) lines, (\d+) accepted, (\d+) duplicates, (\d+) rejected`).FindStringSubmatch(out)
	if m == nil {
		tb.Fatalf("no counts in %q", out)
	}
	n := make([]int, 4)
	for i := range n {
		n[i], _ = strconv.Atoi(m[i+1])
	}
	return n[0], n[1], n[2], n[3]
}

// rankd import loads a whole contest (definitions included) from a real feed into a running server; an
// import interrupted goes on after the last batch the server acknowledged; the board is the offline one.
func TestImport(t *testing.T) {
	data, err := os.ReadFile(feed(t, "euc2025"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "euc2025.ndjson")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	total := bytes.Count(data, []byte{'\n'})
	p := StartRankd(t, t.TempDir())
	state := filepath.Join(t.TempDir(), "import.json")
	args := []string{"import", "--server", p.URL, "--token", testAdminToken, "--feed", path, "--batch", "200", "--state", state}

	// Interrupted once the first batch is acknowledged.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOn{text: "line 200:", cancel: cancel}
	if err := (&main.Main{Stdout: &bytes.Buffer{}, Stderr: stderr}).Run(ctx, args); err == nil {
		t.Fatalf("an interrupted import: got no error; it said:\n%s", stderr.buf.String())
	}
	if msg := stderr.buf.String(); !strings.Contains(msg, "interrupted after line 200") {
		t.Fatalf("an interrupted import said:\n%s\nwant where it stopped", msg)
	}
	if _, err := os.Stat(state); err != nil {
		t.Fatalf("no state file after an interruption: %v", err)
	}

	out, errOut, err := run(args...)
	if err != nil {
		t.Fatalf("import again: %v\n%s", err, errOut)
	}
	if !strings.Contains(errOut, "going on after line 200") {
		t.Errorf("import again said:\n%s\nwant that it goes on after line 200", errOut)
	}
	lines, accepted, duplicates, rejected := importCounts(t, out)
	if lines != total || accepted+duplicates+rejected > total-200+10 || accepted < 2000 {
		t.Errorf("import again: got %d lines, %d accepted, %d duplicates, %d rejected; want the %d lines, the first 190 not sent again",
			lines, accepted, duplicates, rejected, total)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("the state file is still there once the import is done (%v)", err)
	}
	for _, view := range []string{"jury", "public"} {
		want := scoreboardRows(t, []byte(MustRun(t, "standings", "--feed", path, "--view", view, "--format", "ccs")))
		if got := MustServedRows(t, p.URL, "euc2025", view); got != want {
			t.Errorf("view %s: the imported board differs from the offline one:\ngot  %.600s\nwant %.600s", view, got, want)
		}
	}

	// Done: run again, everything is sent and nothing is new.
	out, errOut, err = run(append(args, "--batch", "1000")...)
	if err != nil {
		t.Fatalf("import a third time: %v\n%s", err, errOut)
	}
	if _, accepted, _, _ := importCounts(t, out); accepted != 0 {
		t.Errorf("import a third time: got %d accepted, want 0", accepted)
	}
}

// wf47's feed repeats versions of judgements (the same line under two tokens) before changing them again:
// imported a second time, nothing is new, and no judgement goes back to an older version (a repeated line's
// token is not kept, and it once came back as a re-creation).
func TestImportTwiceWF47(t *testing.T) {
	p := StartRankd(t, t.TempDir())
	args := []string{"import", "--server", p.URL, "--token", testAdminToken, "--feed", feed(t, "wf47"), "--restart"}
	MustRun(t, args...)
	if _, accepted, _, rejected := importCounts(t, MustRun(t, args...)); accepted != 0 || rejected != 0 {
		t.Errorf("import again: got %d accepted, %d rejected; want 0, 0", accepted, rejected)
	}
}

// A feed that sends a submission twice, under two tokens, and then deletes it, imported a second time from
// its start: the second line repeats the first (its token names that event), it does not bring back what the
// feed deleted.
func TestImportTwiceRepeatThenDelete(t *testing.T) {
	data, err := os.ReadFile(feed(t, "euc2025"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSuffix(data, []byte{'\n'}), []byte{'\n'})
	sub := regexp.MustCompile(`^\{"type":"submissions","id":"1457",.*"token":"cdi211"\}\n$`)
	var extra []byte
	for _, l := range lines {
		if sub.Match(l) {
			extra = append(bytes.Replace(l, []byte(`"cdi211"`), []byte(`"again-1457"`), 1),
				`{"type":"submissions","id":"1457","data":null,"token":"gone-1457"}`+"\n"...)
		}
	}
	if extra == nil {
		t.Fatal("submission 1457 not found in the feed")
	}
	last := len(lines) - 1
	path := filepath.Join(t.TempDir(), "feed.ndjson")
	body := slices.Concat(bytes.Join(lines[:last], nil), extra, lines[last])
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	p := StartRankd(t, t.TempDir())
	args := []string{"import", "--server", p.URL, "--token", testAdminToken, "--feed", path, "--restart"}
	for _, name := range []string{"import", "import again"} {
		out := MustRun(t, args...)
		if _, accepted, _, rejected := importCounts(t, out); rejected != 0 || name == "import again" && accepted != 0 {
			t.Errorf("%s: got %d accepted, %d rejected; want none rejected, and none accepted the second time", name, accepted, rejected)
		}
		req, err := http.NewRequest("GET", p.URL+"/api/v1/contests/euc2025/submissions?view=jury&team=28", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+testAdminToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Contains(got, []byte(`"id"`)) || bytes.Contains(got, []byte(`"1457"`)) {
			t.Errorf("team 28's submissions after the %s: got %d %s, want 200, its others without submission 1457", name, resp.StatusCode, got)
		}
	}
}

// An import resumed against a server that no longer has what it acknowledged (restored from an older backup,
// or a new one at the same address) sends the whole feed again rather than leave a gap.
func TestImportResumeOnAForgetfulServer(t *testing.T) {
	path := feed(t, "euc2025")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	total := bytes.Count(data, []byte{'\n'})
	state := filepath.Join(t.TempDir(), "import.json")
	first := StartRankd(t, t.TempDir())
	args := func(url string) []string {
		return []string{"import", "--server", url, "--token", testAdminToken, "--feed", path, "--batch", "500", "--state", state}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOn{text: "line 500:", cancel: cancel}
	if err := (&main.Main{Stdout: &bytes.Buffer{}, Stderr: stderr}).Run(ctx, args(first.URL)); err == nil {
		t.Fatalf("an interrupted import: got no error; it said:\n%s", stderr.buf.String())
	}
	for _, tc := range []struct {
		name string
		feed string // what the new server holds already
	}{
		{"an empty server", ""},
		{"a server with the start of the feed only", string(bytes.Join(bytes.SplitAfter(data, []byte{'\n'})[:400], nil))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The state file says line 500; the server at the state's address has less.
			st, err := os.ReadFile(state)
			if err != nil {
				t.Fatal(err)
			}
			again := StartRankd(t, t.TempDir())
			if err := os.WriteFile(state, bytes.ReplaceAll(st, []byte(first.URL), []byte(again.URL)), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(state, st, 0o644)
			if tc.feed != "" {
				part := filepath.Join(t.TempDir(), "part.ndjson")
				if err := os.WriteFile(part, []byte(tc.feed), 0o644); err != nil {
					t.Fatal(err)
				}
				MustRun(t, "import", "--server", again.URL, "--token", testAdminToken, "--feed", part, "--state", filepath.Join(t.TempDir(), "s"))
			}
			out, errOut, err := run(args(again.URL)...)
			if err != nil {
				t.Fatalf("import: %v\n%s", err, errOut)
			}
			if !strings.Contains(errOut, "does not have the lines up to 500") {
				t.Errorf("import said:\n%s\nwant that the server lost lines", errOut)
			}
			if lines, _, _, _ := importCounts(t, out); lines != total {
				t.Errorf("got %d lines, want %d", lines, total)
			}
			for _, view := range []string{"jury", "public"} {
				want := scoreboardRows(t, []byte(MustRun(t, "standings", "--feed", path, "--view", view, "--format", "ccs")))
				if got := MustServedRows(t, again.URL, "euc2025", view); got != want {
					t.Errorf("view %s: the imported board differs from the offline one:\ngot  %.600s\nwant %.600s", view, got, want)
				}
			}
		})
	}
}

func TestImportErrors(t *testing.T) {
	p := StartRankd(t, t.TempDir())
	path := feed(t, "euc2025")
	empty := filepath.Join(t.TempDir(), "empty.ndjson")
	if err := os.WriteFile(empty, []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RANKD_ADMIN_TOKEN", "")
	t.Setenv("RANKD_JUDGE_TOKEN", "")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no feed", []string{"import", "--server", p.URL, "--token", testAdminToken}, "--feed FILE is required"},
		{"no token", []string{"import", "--server", p.URL, "--feed", path, "--state", filepath.Join(t.TempDir(), "s")}, "give a token"},
		{"a wrong token", []string{"import", "--server", p.URL, "--token", "not-a-token-of-this-server", "--feed", path, "--state", filepath.Join(t.TempDir(), "s")}, "unknown token (the token of --token)"},
		{"no contest in the feed", []string{"import", "--server", p.URL, "--token", testAdminToken, "--feed", empty, "--state", filepath.Join(t.TempDir(), "s")}, "give --contest ID"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, err := run(tt.args...)
			if err == nil {
				t.Fatalf("got no error; it said %q", errOut)
			}
			if msg := errOut + err.Error(); !strings.Contains(msg, tt.want) {
				t.Errorf("got %q, want it to say %q", msg, tt.want)
			}
		})
	}
}

// A feed file that starts with a byte order mark imports whole: its first line is the contest.
func TestImportByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "gen.ndjson")
	MustRun(t, "gen", "--id", "bom", "--teams", "5", "--submissions", "40", "--out", plain)
	data, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "bom.ndjson")
	if err := os.WriteFile(path, append([]byte("\ufeff"), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	p := StartRankd(t, t.TempDir())
	out := MustRun(t, "import", "--server", p.URL, "--token", testAdminToken, "--feed", path, "--state", filepath.Join(dir, "s"))
	if _, _, _, rejected := importCounts(t, out); rejected != 0 {
		t.Errorf("got %d lines rejected, want none: %s", rejected, out)
	}
	want := scoreboardRows(t, []byte(MustRun(t, "standings", "--feed", plain, "--view", "jury", "--format", "ccs")))
	if got := MustServedRows(t, p.URL, "bom", "jury"); got != want {
		t.Errorf("the imported board differs from the offline one:\ngot  %.600s\nwant %.600s", got, want)
	}
}

// rankd loadtest --mode ingest posts a feed the way rankd import does, and says how fast.
func TestLoadtestIngest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gen.ndjson")
	MustRun(t, "gen", "--id", "load", "--teams", "5", "--submissions", "40", "--out", path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := StartRankd(t, t.TempDir())
	t.Setenv("RANKD_JUDGE_TOKEN", testJudgeToken)
	out := MustRun(t, "loadtest", "--server", p.URL, "--contest", "load", "--mode", "ingest", "--feed", path, "--batch", "20")
	want := strconv.Itoa(bytes.Count(data, []byte{'\n'})) + " events (0 rejected)"
	if !strings.Contains(out, want) {
		t.Errorf("got %q, want it to say %q", out, want)
	}
}

// A feed whose contest system numbers its events anew (its database reloaded: the same events under tokens
// that named others before) imported over what an earlier import stored: the lines whose tokens name other
// events are taken without them, and the board is the feed's, nothing refused.
func TestImportRenumberedFeed(t *testing.T) {
	data, err := os.ReadFile(feed(t, "euc2025"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSuffix(data, []byte{'\n'}), []byte{'\n'})
	dir := t.TempDir()
	before, renumbered := filepath.Join(dir, "before.ndjson"), filepath.Join(dir, "renumbered.ndjson")
	if err := os.WriteFile(before, bytes.Join(lines[:1500], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	token := regexp.MustCompile(`"token":"cdi(\d+)"`)
	var again []byte
	for _, l := range lines {
		again = append(again, token.ReplaceAllFunc(l, func(m []byte) []byte {
			n, _ := strconv.Atoi(string(token.FindSubmatch(m)[1]))
			return fmt.Appendf(nil, `"token":"cdi%d"`, n+7)
		})...)
	}
	if err := os.WriteFile(renumbered, again, 0o644); err != nil {
		t.Fatal(err)
	}
	p := StartRankd(t, t.TempDir())
	MustRun(t, "import", "--server", p.URL, "--token", testAdminToken, "--feed", before, "--restart")
	out, errOut, err := run("import", "--server", p.URL, "--token", testAdminToken, "--feed", renumbered, "--restart")
	if err != nil {
		t.Fatalf("import the renumbered feed: %v\n%s", err, errOut)
	}
	if _, _, _, rejected := importCounts(t, out); rejected != 0 || !strings.Contains(out, "taken without their tokens") {
		t.Errorf("import the renumbered feed: got\n%s%s\nwant nothing rejected, and lines taken without their tokens", out, errOut)
	}
	for _, view := range []string{"jury", "public"} {
		want := scoreboardRows(t, []byte(MustRun(t, "standings", "--feed", feed(t, "euc2025"), "--view", view, "--format", "ccs")))
		if got := MustServedRows(t, p.URL, "euc2025", view); got != want {
			t.Errorf("view %s: the board differs from the feed's:\ngot  %.600s\nwant %.600s", view, got, want)
		}
	}
}

// A server that takes smaller requests than an import sends refuses the batch (413): the import says how to
// send smaller ones.
func TestImportBatchTooLarge(t *testing.T) {
	p := StartRankd(t, t.TempDir(), "--max-body", "50000")
	_, errOut, err := run("import", "--server", p.URL, "--token", testAdminToken, "--feed", feed(t, "euc2025"), "--restart")
	if err == nil || !strings.Contains(err.Error()+errOut, "give --batch fewer lines per request") {
		t.Errorf("got %v\n%s\nwant an error saying to give --batch fewer lines", err, errOut)
	}
	if _, _, err := run("import", "--server", p.URL, "--token", testAdminToken, "--feed", feed(t, "euc2025"), "--restart", "--batch", "10"); err != nil {
		t.Errorf("with --batch 100: %v", err)
	}
}

// Lines whose tokens name other events are taken without them in their place in the feed: a later line that
// depends on one (a judgement of a submission whose token was taken) or replaces it (a rejudge) comes after
// it, as the feed has them.
func TestImportTakenTokensInOrder(t *testing.T) {
	head := `{"type":"contest","id":"c","data":{"id":"c","name":"C","start_time":"2026-12-01T09:00:00Z","duration":"5:00:00","scoreboard_freeze_duration":"1:00:00","penalty_time":20},"token":"e1"}
{"type":"judgement-types","id":"AC","data":{"id":"AC","name":"correct","penalty":false,"solved":true},"token":"e2"}
{"type":"judgement-types","id":"WA","data":{"id":"WA","name":"wrong","penalty":true,"solved":false},"token":"e3"}
{"type":"problems","id":"A","data":{"id":"A","label":"A","name":"A","ordinal":1},"token":"e4"}
{"type":"teams","id":"t1","data":{"id":"t1","name":"Team1"},"token":"e5"}
{"type":"teams","id":"t2","data":{"id":"t2","name":"Team2"},"token":"e6"}
`
	s1 := `{"type":"submissions","id":"s1","data":{"id":"s1","team_id":"t1","problem_id":"A","contest_time":"0:11:00"},"token":"e7"}
{"type":"judgements","id":"j1","data":{"id":"j1","submission_id":"s1","judgement_type_id":"WA","start_contest_time":"0:11:00"},"token":"e8"}
`
	for _, tc := range []struct{ name, first, second string }{
		{"a submission, then its judgement", head + s1, head + `{"type":"state","data":{"started":"2026-12-01T09:00:00Z"},"token":"e7"}
{"type":"submissions","id":"s2","data":{"id":"s2","team_id":"t2","problem_id":"A","contest_time":"0:12:00"},"token":"e8"}
{"type":"judgements","id":"j2","data":{"id":"j2","submission_id":"s2","judgement_type_id":"AC","start_contest_time":"0:12:00"},"token":"e9"}
`},
		{"a judgement, then its new version", head + s1 + `{"type":"submissions","id":"s2","data":{"id":"s2","team_id":"t2","problem_id":"A","contest_time":"0:12:00"},"token":"e9"}
`, head + `{"type":"submissions","id":"s1","data":{"id":"s1","team_id":"t1","problem_id":"A","contest_time":"0:11:00"},"token":"e7"}
{"type":"submissions","id":"s2","data":{"id":"s2","team_id":"t2","problem_id":"A","contest_time":"0:12:00"},"token":"e8"}
{"type":"judgements","id":"j2","data":{"id":"j2","submission_id":"s2","judgement_type_id":"WA","start_contest_time":"0:12:00"},"token":"e9"}
{"type":"judgements","id":"j2","data":{"id":"j2","submission_id":"s2","judgement_type_id":"AC","start_contest_time":"0:12:00"},"token":"e10"}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			first, second, both := filepath.Join(dir, "first.ndjson"), filepath.Join(dir, "second.ndjson"), filepath.Join(dir, "both.ndjson")
			for path, data := range map[string]string{first: tc.first, second: tc.second, both: tc.first + tc.second} {
				if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			p := StartRankd(t, t.TempDir())
			MustRun(t, "import", "--server", p.URL, "--token", testAdminToken, "--feed", first, "--restart")
			out := MustRun(t, "import", "--server", p.URL, "--token", testAdminToken, "--feed", second, "--restart")
			if _, _, _, rejected := importCounts(t, out); rejected != 0 {
				t.Errorf("the second feed: got %s, want nothing rejected", out)
			}
			want := scoreboardRows(t, []byte(MustRun(t, "standings", "--feed", both, "--view", "jury", "--format", "ccs")))
			if got := MustServedRows(t, p.URL, "c", "jury"); got != want {
				t.Errorf("the board: got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// A contest system reloaded from a backup sends each object's latest version, numbered anew: a token may now
// name an earlier version of the same object (the contest's state, first of all: its last version, finalized,
// comes under the token of its first, empty one). Imported over what the first part of the feed stored, the
// board is the whole feed's, its state finalized.
func TestImportLatestVersionsRenumbered(t *testing.T) {
	data, err := os.ReadFile(feed(t, "euc2025"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSuffix(data, []byte{'\n'}), []byte{'\n'})
	type object struct{ typ, id string }
	var order []object
	latest := map[object][]byte{}
	for _, l := range lines {
		var ev struct{ Type, ID string }
		if err := json.Unmarshal(l, &ev); err != nil {
			t.Fatal(err)
		}
		o := object{ev.Type, ev.ID}
		if _, ok := latest[o]; !ok {
			order = append(order, o)
		}
		latest[o] = l
	}
	token := regexp.MustCompile(`"token":"[^"]*"`)
	var reloaded []byte
	for i, o := range order {
		l := token.ReplaceAll(bytes.TrimSuffix(latest[o], []byte{'\n'}), fmt.Appendf(nil, `"token":"cdi%d"`, i))
		reloaded = append(append(reloaded, l...), '\n')
	}
	dir := t.TempDir()
	before, after := filepath.Join(dir, "before.ndjson"), filepath.Join(dir, "reloaded.ndjson")
	if err := os.WriteFile(before, bytes.Join(lines[:2500], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(after, reloaded, 0o644); err != nil {
		t.Fatal(err)
	}
	p := StartRankd(t, t.TempDir())
	MustRun(t, "import", "--server", p.URL, "--token", testAdminToken, "--feed", before, "--restart")
	out, errOut, err := run("import", "--server", p.URL, "--token", testAdminToken, "--feed", after, "--restart", "--contest", "euc2025")
	if err != nil {
		t.Fatalf("import the reloaded feed: %v\n%s", err, errOut)
	}
	if _, _, _, rejected := importCounts(t, out); rejected != 0 {
		t.Errorf("the reloaded feed: got %s%s, want nothing rejected", out, errOut)
	}
	for _, view := range []string{"jury", "public"} {
		want := scoreboardRows(t, []byte(MustRun(t, "standings", "--feed", feed(t, "euc2025"), "--view", view, "--format", "ccs")))
		if got := MustServedRows(t, p.URL, "euc2025", view); got != want {
			t.Errorf("view %s: the board differs from the feed's:\ngot  %.600s\nwant %.600s", view, got, want)
		}
	}
	resp, err := http.Get(p.URL + "/api/contests/euc2025/state")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct {
		Finalized    *string `json:"finalized"`
		EndOfUpdates *string `json:"end_of_updates"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || st.Finalized == nil || st.EndOfUpdates == nil {
		t.Errorf("the state: got %+v (%v), want finalized and ended for updates, as the reloaded feed says", st, err)
	}
}

// stateFirstFeed opens as the real feeds do (DOMjudge's, the World Finals'): a state line before the contest.
var stateFirstFeed = []string{
	`{"type":"state","data":{},"token":"s0"}`,
	`{"type":"contest","id":"sf","data":{"id":"sf","name":"SF","start_time":"2026-03-01T10:00:00Z","duration":"5:00:00"},"token":"c0"}`,
	`{"type":"judgement-types","id":"AC","data":{"id":"AC","name":"correct","penalty":false,"solved":true},"token":"j0"}`,
	`{"type":"problems","id":"A","data":{"id":"A","label":"A","name":"A","ordinal":0},"token":"p0"}`,
	`{"type":"teams","id":"t1","data":{"id":"t1","name":"T1"},"token":"t1"}`,
	`{"type":"submissions","id":"s1","data":{"id":"s1","team_id":"t1","problem_id":"A","contest_time":"0:10:00.000","time":"2026-03-01T10:10:00Z"},"token":"x1"}`,
	`{"type":"judgements","id":"j1","data":{"id":"j1","submission_id":"s1","judgement_type_id":"AC","start_contest_time":"0:10:01.000","start_time":"2026-03-01T10:10:01Z"},"token":"x2"}`,
	`{"type":"state","data":{"started":"2026-03-01T10:00:00Z","ended":"2026-03-01T15:00:00Z","end_of_updates":"2026-03-01T15:00:00Z"},"token":"s1"}`,
}

// The lines of a feed before its contest line go with it, however small the batches: alone, the server has
// no contest to take them into (404), and the import stopped at its first line.
func TestImportStateBeforeContest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "feed.ndjson")
	if err := os.WriteFile(path, []byte(strings.Join(stateFirstFeed, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{}, {"--contest", "sf"}} {
		p := StartRankd(t, t.TempDir())
		out := MustRun(t, append([]string{"import", "--server", p.URL, "--token", testAdminToken, "--feed", path,
			"--batch", "1", "--state", filepath.Join(t.TempDir(), "s")}, args...)...)
		if lines, accepted, _, rejected := importCounts(t, out); lines != len(stateFirstFeed) || rejected != 0 {
			t.Errorf("%v: got %d lines, %d accepted, %d rejected; want %d lines, none rejected", args, lines, accepted, rejected, len(stateFirstFeed))
		}
		if got := MustServedRows(t, p.URL, "sf", "public"); !strings.Contains(got, `"num_solved": 1`) {
			t.Errorf("%v: the public board: got %.300s, want T1 with one solved", args, got)
		}
	}
}
