package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"rankd"
	"rankd/ccs"
)

// importFeed posts a feed file (CCS event feed NDJSON, either style, or rankd's native events) to a running
// server in batches, in order, and reports its progress. The server takes each event once (by id): a batch
// sent twice is answered with duplicates, so an import that was interrupted is resumed by running it again.
// It resumes after the last batch the server acknowledged, which it notes in a state file (by default in the
// user's cache directory, one per feed, server and contest; removed once the import is done).
func (m *Main) importFeed(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	server := fs.String("server", "http://127.0.0.1:8080", "rankd's address")
	token := fs.String("token", "", "an admin or judge token (default: $RANKD_ADMIN_TOKEN, else $RANKD_JUDGE_TOKEN)")
	feedPath := fs.String("feed", "", "the feed to post (NDJSON)")
	contest := fs.String("contest", "", "the contest to post to (default: the id of the feed's contest event)")
	batch := fs.Int("batch", 5000, "lines per request")
	statePath := fs.String("state", "", "where the import notes how far it got (default: a file of rankd's in the user's cache directory)")
	restart := fs.Bool("restart", false, "send the whole feed again, whatever the state file says")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *feedPath == "" || fs.NArg() > 0 {
		fmt.Fprintln(m.Stderr, "rankd import: --feed FILE is required (and flags come before other arguments)")
		fs.Usage()
		return errUsage
	}
	if *batch < 1 {
		fmt.Fprintln(m.Stderr, "rankd import: --batch must be at least 1 line")
		return errUsage
	}
	base, err := serverURL(*server)
	if err != nil {
		return m.badFlag("import", err)
	}
	tokenFrom := postingToken(token)
	if *token == "" {
		fmt.Fprintln(m.Stderr, "rankd import: give a token: --token, or RANKD_ADMIN_TOKEN or RANKD_JUDGE_TOKEN in the environment")
		return errUsage
	}
	f, err := os.Open(*feedPath)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	// The feed's lines before its contest line (a state, in real feeds) go with it: alone, to a contest the
	// server does not have yet, they would be refused.
	id, contestLine, err := feedContest(ctx, f, *contest != "")
	if err != nil {
		return err
	}
	*contest = cmp.Or(*contest, id)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	im := importer{
		command: "import",
		client:  &http.Client{Timeout: 5 * time.Minute},
		url:     base + "/api/v1/contests/" + url.PathEscape(*contest) + "/events?results=problems&taken_tokens=drop",
		token:   *token, tokenFrom: tokenFrom,
		stderr: m.Stderr,
		state: importState{Server: base, Contest: *contest, Size: info.Size(),
			Modified: info.ModTime().UTC()},
		statePath:   *statePath,
		size:        info.Size(),
		contestLine: contestLine,
	}
	if im.statePath == "" {
		im.statePath = defaultImportState(m.Stderr, *feedPath, im.state)
	}
	if !*restart {
		im.resume()
	}
	err = im.run(ctx, f, *batch)
	if errors.Is(err, errForgotten) {
		fmt.Fprintf(m.Stderr, "rankd import: the server does not have the lines up to %d it acknowledged before (restored from an older backup, or another server?): sending the feed from its start\n", im.skip)
		if _, err = f.Seek(0, io.SeekStart); err == nil {
			im.restart()
			err = im.run(ctx, f, *batch)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(m.Stderr, "rankd import: interrupted after line %d; run the same command again to go on from there\n", im.state.Line)
		}
		return err
	}
	if im.statePath != "" {
		_ = os.Remove(im.statePath)
	}
	fmt.Fprintf(m.Stdout, "imported %s into contest %s: %d lines, %d accepted, %d duplicates, %d rejected",
		*feedPath, *contest, im.state.Line, im.accepted, im.duplicates, im.rejected)
	if other := im.sent - im.accepted - im.duplicates - im.rejected; other > 0 {
		fmt.Fprintf(m.Stdout, " (%d more blank, or of types rankd does not keep)", other)
	}
	fmt.Fprintln(m.Stdout, im.retokenedNote())
	return nil
}

// retokenedNote says how many lines were taken without their tokens, if any.
func (im *importer) retokenedNote() string {
	if im.retokened == 0 {
		return ""
	}
	return fmt.Sprintf("; %d lines taken without their tokens, which named other events", im.retokened)
}

// feedContest returns the id of the first contest a feed defines and the line that defines it. Given its id
// (named), it looks no further than the feed's first submission or judgement, and a feed that defines no
// contest is no error. Bad lines are passed over; a feed that cannot be read fails.
func feedContest(ctx context.Context, r io.Reader, named bool) (id string, line int, err error) {
	rd := ccs.NewReader(r)
	for {
		ev, err := rd.Next()
		switch {
		case err == io.EOF && named:
			return "", 0, nil
		case err == io.EOF:
			return "", 0, errors.New("the feed defines no contest: give --contest ID")
		case err != nil && !badLine(err):
			return "", 0, err
		case ctx.Err() != nil:
			return "", 0, ctx.Err()
		case err == nil && ev.Type == rankd.EventContest && ev.Contest != nil && ev.Contest.ID != "":
			return ev.Contest.ID, rd.Line(), nil
		case err == nil && named && (ev.Type == rankd.EventSubmission || ev.Type == rankd.EventJudgement):
			return "", 0, nil
		}
	}
}

// defaultImportState returns the state file of an import of a feed into a contest of a server, in the user's
// cache directory; "" (no state kept) when there is none.
func defaultImportState(stderr io.Writer, feed string, st importState) string {
	dir, err := os.UserCacheDir()
	if err == nil {
		dir = filepath.Join(dir, "rankd")
		err = os.MkdirAll(dir, 0o700)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rankd import: no place to note the progress (%v): an interrupted import would start again\n", err)
		return ""
	}
	if abs, err := filepath.Abs(feed); err == nil {
		feed = abs
	}
	sum := sha256.Sum256([]byte(feed + "\x00" + st.Server + "\x00" + st.Contest))
	return filepath.Join(dir, "import-"+hex.EncodeToString(sum[:8])+".json")
}

// importState is how far an import got: the lines the server acknowledged, of this feed (as its size and
// time say) to this contest of this server.
type importState struct {
	Server   string    `json:"server"`
	Contest  string    `json:"contest"`
	Size     int64     `json:"size"`
	Modified time.Time `json:"modified"`
	Line     int       `json:"line"`
}

type importer struct {
	command   string // the rankd command, in messages
	client    *http.Client
	url       string
	token     string
	tokenFrom string // where the token came from (a flag, a variable), for a refusal to name
	stderr    io.Writer
	state     importState
	statePath string
	size      int64 // of the feed, for the progress
	// contestLine is the feed's line that defines its contest (0: none known): the lines before it wait
	// for it, in the request that sends it.
	contestLine int

	skip                           int // lines the server has already acknowledged
	sent                           int // lines sent and answered
	accepted, duplicates, rejected int
	shownRejected                  int
	retokened                      int // lines stored without their tokens, which named other events
	lastProgress                   time.Time
	lastShown                      string // the last progress report
	// answered, when set, is told how long each batch took to be answered (the load test's measure).
	answered func(time.Duration)
	// lastPos is the log position of the last event the server accepted, when its answers list them all;
	// behind says that it then accepted one at a position not after it: its log went back (restored from
	// an older backup, or the contest deleted and created again), and lines it acknowledged are gone.
	lastPos int64
	behind  bool
}

// resume reads the state file of an earlier run of the same import.
func (im *importer) resume() {
	data, err := os.ReadFile(im.statePath)
	if err != nil {
		return
	}
	var st importState
	if json.Unmarshal(data, &st) != nil || st.Server != im.state.Server || st.Contest != im.state.Contest ||
		st.Size != im.state.Size || !st.Modified.Equal(im.state.Modified) {
		fmt.Fprintf(im.stderr, "rankd import: %s is of another import or another version of the feed: sending it all\n", im.statePath)
		return
	}
	im.skip = st.Line
	fmt.Fprintf(im.stderr, "rankd import: going on after line %d, which the server acknowledged before (--restart sends everything)\n", st.Line)
}

// checkLines is how many of the lines acknowledged before a resumed import sends again, to see that the
// server still has them.
const checkLines = 10

// errForgotten reports that the server no longer has lines it acknowledged to an earlier run of the import.
var errForgotten = errors.New("the server forgot acknowledged lines")

// restart forgets what an earlier run of the import sent, to send the whole feed.
func (im *importer) restart() {
	im.skip, im.sent, im.accepted, im.duplicates, im.rejected, im.shownRejected = 0, 0, 0, 0, 0, 0
	im.state.Line = 0
}

// maxImportBody bounds a request: well below the server's body limit, whatever the lines' sizes.
const maxImportBody = 8 << 20

// run posts the feed in batches of at most n lines.
func (im *importer) run(ctx context.Context, r io.Reader, n int) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var buf bytes.Buffer
	line, first, count := 0, 0, 0
	var read int64
	// Resuming, the last lines the server acknowledged go again first: if it answers that it did not have
	// them (restored from an older backup), the lines before them are lost too, and the import starts over.
	var last [][]byte
	check := func() error {
		if len(last) == 0 {
			return nil
		}
		accepted := im.accepted
		err := im.post(ctx, bytes.Join(last, nil), im.skip-len(last)+1)
		var pe *postError
		if errors.As(err, &pe) && pe.status == http.StatusNotFound || err == nil && im.accepted > accepted {
			return errForgotten
		}
		last = nil
		return err
	}
	flush := func() error {
		if count == 0 {
			return nil
		}
		if err := im.post(ctx, buf.Bytes(), first); err != nil {
			return err
		}
		im.state.Line = first + count - 1
		im.sent += count
		im.save()
		im.progress(read, false)
		buf.Reset()
		count = 0
		return nil
	}
	for {
		text, err := br.ReadBytes('\n')
		if len(text) > 0 {
			if line++; line == 1 {
				text = bytes.TrimPrefix(text, []byte("\ufeff")) // a byte order mark is no part of the line
			}
			read += int64(len(text))
			if line <= im.skip && line > im.skip-checkLines {
				last = append(last, withNewline(text))
			}
			if line == im.skip {
				if err := check(); err != nil {
					return err
				}
			}
			if line > im.skip {
				if count == 0 {
					first = line
				}
				buf.Write(withNewline(text))
				if count++; count >= n && line >= im.contestLine || buf.Len() >= maxImportBody {
					if err := flush(); err != nil {
						return err
					}
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if err := check(); err != nil { // a feed that ended within what was acknowledged
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	im.state.Line = max(line, im.skip)
	im.progress(read, true)
	return nil
}

// withNewline returns a feed line with its line break, which the last line may lack.
func withNewline(text []byte) []byte {
	if text[len(text)-1] != '\n' {
		return append(text, '\n')
	}
	return text
}

// postingToken fills token, when empty, from RANKD_ADMIN_TOKEN, else RANKD_JUDGE_TOKEN, and returns where it
// came from.
func postingToken(token *string) string {
	switch {
	case *token != "":
		return "--token"
	case os.Getenv("RANKD_ADMIN_TOKEN") != "":
		*token = os.Getenv("RANKD_ADMIN_TOKEN")
		return "RANKD_ADMIN_TOKEN"
	}
	*token = os.Getenv("RANKD_JUDGE_TOKEN")
	return "RANKD_JUDGE_TOKEN"
}

// postError is a batch the server answered with an error status.
type postError struct {
	first, status int
	msg           string
}

func (e *postError) Error() string {
	msg := fmt.Sprintf("lines from %d: %s (%d)", e.first, e.msg, e.status)
	if e.status == http.StatusRequestEntityTooLarge {
		msg += ": give --batch fewer lines per request"
	}
	return msg
}

// fromLine describes err, of the batch whose first line is first, naming the line once.
func fromLine(first int, err error) string {
	if pe, ok := errors.AsType[*postError](err); ok {
		return pe.Error()
	}
	return fmt.Sprintf("lines from %d: %v", first, err)
}

// post sends one batch, whose first line is line first of the feed, trying again while the server is
// unreachable or unavailable (sending again is harmless).
func (im *importer) post(ctx context.Context, body []byte, first int) error {
	var err error
	for attempt := range 6 {
		if attempt > 0 {
			wait := time.Duration(1<<(attempt-1)) * time.Second
			fmt.Fprintf(im.stderr, "rankd import: %s; trying again in %s\n", fromLine(first, err), wait)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
		}
		begin := time.Now()
		var again bool
		if again, err = im.send(ctx, body, first); err == nil && im.answered != nil {
			im.answered(time.Since(begin))
		}
		if err == nil || !again || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// send posts a batch once; again reports an error worth trying again.
func (im *importer) send(ctx context.Context, body []byte, first int) (again bool, err error) {
	req, err := http.NewRequestWithContext(ctx, "POST", im.url, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	req.Header.Set("Authorization", "Bearer "+im.token)
	resp, err := im.client.Do(req)
	if err != nil {
		return true, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return true, err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct{ Code, Message string }
		msg := strings.TrimSpace(string(data))
		if json.Unmarshal(data, &e) == nil && e.Message != "" {
			msg = e.Message
		}
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			msg += " (the token of " + im.tokenFrom + ")"
		}
		return resp.StatusCode >= 500, &postError{first: first, status: resp.StatusCode, msg: msg}
	}
	var out struct {
		Accepted, Duplicates, Rejected int
		Results                        []struct {
			Item    int
			Status  string
			Code    string
			Message string
			Cause   string
			Pos     int64
		}
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return false, fmt.Errorf("lines from %d: the server's answer: %w", first, err)
	}
	im.accepted += out.Accepted
	im.duplicates += out.Duplicates
	im.rejected += out.Rejected
	last := im.lastPos
	for _, r := range out.Results {
		if r.Status == "accepted" && r.Pos > 0 {
			// Accepted events take the log's next positions: one not after an earlier one is of a log that
			// went back.
			if r.Pos <= last {
				im.behind, im.lastPos = true, 0
			}
			last, im.lastPos = r.Pos, max(im.lastPos, r.Pos)
		}
		if r.Cause == "token_taken" && r.Status != "rejected" {
			// Its token names another event in rankd's log (the feed numbers its events anew: its contest
			// system's database reloaded, or a second source shares the contest): taken without it, as the
			// request asks (taken_tokens=drop).
			if im.retokened++; im.retokened == 1 {
				fmt.Fprintf(im.stderr, "rankd %s: line %d: its token names another event in rankd's log: the feed numbers its events anew "+
					"(its contest system's database reloaded?); such lines are taken without their tokens, by what they say\n", im.command, first+r.Item-1)
			}
			continue
		}
		if r.Status != "rejected" {
			continue
		}
		if im.shownRejected++; im.shownRejected <= 20 {
			// The server numbers the lines of its request; the feed's number is said already.
			msg := strings.TrimPrefix(r.Message, fmt.Sprintf("line %d: ", r.Item))
			fmt.Fprintf(im.stderr, "rankd %s: line %d: rejected: %s\n", im.command, first+r.Item-1, msg)
		} else if im.shownRejected == 21 {
			fmt.Fprintf(im.stderr, "rankd %s: (more rejected lines: the count at the end says how many)\n", im.command)
		}
	}
	return false, nil
}

// save notes how far the import got; an import that cannot note it still goes on.
func (im *importer) save() {
	if im.statePath == "" {
		return
	}
	data, _ := json.Marshal(im.state)
	if err := os.WriteFile(im.statePath, data, 0o644); err != nil {
		fmt.Fprintf(im.stderr, "rankd import: cannot note the progress (%v): an interrupted import would start again\n", err)
		im.statePath = ""
	}
}

// progress reports, at most once a second and at the end, how much of the feed the server has.
func (im *importer) progress(read int64, last bool) {
	if !last && time.Since(im.lastProgress) < time.Second {
		return
	}
	pct := 100.0
	if im.size > 0 {
		pct = 100 * float64(read) / float64(im.size)
	}
	msg := fmt.Sprintf("rankd import: %3.0f%%, line %d: %d accepted, %d duplicates, %d rejected\n",
		pct, im.state.Line, im.accepted, im.duplicates, im.rejected)
	if msg == im.lastShown {
		return // the last batch's report said it already
	}
	im.lastProgress, im.lastShown = time.Now(), msg
	fmt.Fprint(im.stderr, msg)
}
