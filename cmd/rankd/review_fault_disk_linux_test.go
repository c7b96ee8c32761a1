package main_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"rankd/gen"
)

// limitFileSize sets the largest file a running process may write (RLIMIT_FSIZE, prlimit(2)): a write beyond
// it fails, as on a full disk (EFBIG rather than ENOSPC; the Go runtime ignores SIGXFSZ). infinite lifts it.
func limitFileSize(tb testing.TB, pid int, size uint64, infinite bool) {
	tb.Helper()
	lim := syscall.Rlimit{Cur: size, Max: ^uint64(0)}
	if infinite {
		lim.Cur = ^uint64(0)
	}
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), uintptr(syscall.RLIMIT_FSIZE),
		uintptr(unsafe.Pointer(&lim)), 0, 0, 0); errno != 0 {
		tb.Fatalf("prlimit: %v", errno)
	}
}

// judgeDo sends a request with a token and returns its status and its error body, if any.
func judgeDo(tb testing.TB, method, url, token, ctype string, body []byte) (int, struct{ Code, Message string }) {
	tb.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var e struct{ Code, Message string }
	if resp.StatusCode >= 400 {
		if err := json.Unmarshal(data, &e); err != nil {
			tb.Errorf("%s %s: status %d with a body that is not JSON: %q", method, url, resp.StatusCode, data)
		}
	}
	return resp.StatusCode, e
}

// The embedded store's disk full, every write the server makes is refused alike: events, a team's token,
// the deletion of a contest are each answered 503 unavailable ("retry"), as docs/api.md says of a store
// that failed, not 500 internal ("a fault of ours") — an operator's script or the console reads 500 as a
// bug and does not retry. Once there is room again, the same requests succeed without a restart, and
// nothing acknowledged is missing.
func TestServeFullDiskAnswersEveryWrite503(t *testing.T) {
	cfg := gen.Config{Seed: 9, ContestID: "full", Teams: 60, Problems: 6, Submissions: 6000}.WithDefaults()
	data, _ := genFeed(t, cfg)
	path := filepath.Join(t.TempDir(), "feed.ndjson")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	batches := splitLines(data, 2000)
	if len(batches) < 4 {
		t.Fatalf("got %d batches, want at least 4", len(batches))
	}
	dir := t.TempDir()
	p := StartRankd(t, dir)
	events := p.URL + "/api/v1/contests/" + cfg.ContestID + "/events"
	if _, err := postFeed(p.URL, cfg.ContestID, batches[0]); err != nil {
		t.Fatal(err)
	}
	wal, err := os.Stat(filepath.Join(dir, "rankd.db-wal"))
	if err != nil {
		t.Fatal(err)
	}
	limitFileSize(t, p.cmd.Process.Pid, uint64(wal.Size()), false) // the disk is full

	rest := bytes.Join(batches[1:], nil)
	if status, e := judgeDo(t, "POST", events, testJudgeToken, "application/x-ndjson", rest); status != http.StatusServiceUnavailable || e.Code != "unavailable" {
		t.Fatalf("events on a full disk: got %d %+v, want 503 unavailable", status, e)
	}
	for _, r := range []struct{ method, url string }{
		{"POST", p.URL + "/api/v1/contests/" + cfg.ContestID + "/teams/1/tokens"},
		{"DELETE", p.URL + "/api/v1/contests/" + cfg.ContestID},
	} {
		status, e := judgeDo(t, r.method, r.url, testAdminToken, "", nil)
		if status != http.StatusServiceUnavailable || e.Code != "unavailable" {
			t.Errorf("%s %s on a full disk: got %d %+v, want 503 unavailable (retry)", r.method, r.url, status, e)
		}
		if strings.Contains(e.Message, "sqlite") || strings.Contains(e.Message, "I/O error") {
			t.Errorf("%s %s: the answer shows the driver's words: %q", r.method, r.url, e.Message)
		}
	}

	limitFileSize(t, p.cmd.Process.Pid, 0, true) // room again
	if _, err := postFeed(p.URL, cfg.ContestID, rest); err != nil {
		t.Fatalf("events once there is room again: %v", err)
	}
	if status, e := judgeDo(t, "POST", p.URL+"/api/v1/contests/"+cfg.ContestID+"/teams/1/tokens", testAdminToken, "", nil); status != http.StatusCreated {
		t.Errorf("a team's token once there is room again: got %d %+v, want 201", status, e)
	}
	for _, view := range []string{"jury", "public"} {
		if got, want := MustServedRows(t, p.URL, cfg.ContestID, view), offlineRows(t, path, view); got != want {
			t.Errorf("view %s: the served board differs from the offline one", view)
		}
	}
	p.Stop(t)
	p = StartRankd(t, dir)
	for _, view := range []string{"jury", "public"} {
		if got, want := MustServedRows(t, p.URL, cfg.ContestID, view), offlineRows(t, path, view); got != want {
			t.Errorf("after a restart, view %s: the served board differs from the offline one", view)
		}
	}
}

// The store's files deleted under a running server (a clean-up job, an operator's rm in the wrong
// directory): it went on acknowledging events into files that no longer had a name, and a restart found an
// empty store, every contest gone without a word. Now every write after the deletion is refused (503, retry),
// the log says what happened, and a copy of the store as the server had it is saved beside the path: put
// back, it gives a restarted server every event acknowledged.
func TestServeDeletedStoreLosesNothingAcknowledged(t *testing.T) {
	cfg := gen.Config{Seed: 9, ContestID: "gone", Teams: 30, Problems: 4, Submissions: 1000}.WithDefaults()
	data, _ := genFeed(t, cfg)
	batches := splitLines(data, 1000)
	dir := t.TempDir()
	p := StartRankd(t, dir)
	if _, err := postFeed(p.URL, cfg.ContestID, batches[0]); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"rankd.db", "rankd.db-wal", "rankd.db-shm"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	events := p.URL + "/api/v1/contests/" + cfg.ContestID + "/events"
	var saved string
	for deadline := time.Now().Add(20 * time.Second); saved == ""; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no copy of the store saved\n%s", p.Logs())
		}
		if status, e := judgeDo(t, "POST", events, testJudgeToken, "application/x-ndjson", batches[1]); status != http.StatusServiceUnavailable || e.Code != "unavailable" {
			t.Fatalf("events after the store's file was deleted: got %d %+v, want 503 unavailable", status, e)
		}
		if m := regexp.MustCompile(`saved as (\S+):`).FindStringSubmatch(p.Logs()); m != nil {
			saved = m[1]
		}
	}
	p.Kill()
	for _, name := range []string{"rankd.db", "rankd.db-wal", "rankd.db-shm"} {
		_ = os.Remove(filepath.Join(dir, name)) // made anew by the server's readers since
	}
	if err := os.Rename(saved, filepath.Join(dir, "rankd.db")); err != nil {
		t.Fatal(err)
	}
	acked := filepath.Join(t.TempDir(), "acked.ndjson")
	if err := os.WriteFile(acked, batches[0], 0o644); err != nil {
		t.Fatal(err)
	}
	p = StartRankd(t, dir)
	for _, view := range []string{"jury", "public"} {
		if got, want := MustServedRows(t, p.URL, cfg.ContestID, view), offlineRows(t, acked, view); got != want {
			t.Errorf("view %s, restarted on the saved copy: the served board differs from the offline one of the events acknowledged", view)
		}
	}
}
