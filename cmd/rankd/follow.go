package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// follow relays a live CCS event feed (a contest system's, such as DOMjudge's, or another rankd's) to a
// rankd server as it comes: lines are posted in small batches, none waiting longer than --delay, and
// when the feed's connection drops it connects again from after the last line read (since_token, or
// since_id for a 2020-03 feed), so that the board follows the contest system without a gap. It ends when
// the feed says it has ended (end_of_updates; the connection may stay open after it, as DOMjudge's does),
// or at Ctrl-C; run again, it sends the feed from its start, which the server answers with duplicates.
func (m *Main) follow(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("follow", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	from := fs.String("from", "", "the event feed to follow, such as https://judge.example/api/v4/contests/ID/event-feed")
	fromAuth := fs.String("from-auth", "", "USER:PASSWORD for the feed's server (HTTP basic authentication, as DOMjudge's API takes; default: $RANKD_FROM_AUTH)")
	fromToken := fs.String("from-token", "", "a bearer token for the feed's server instead (default: $RANKD_FROM_TOKEN)")
	fromCA := fs.String("from-ca", "", "a PEM file of certificates to trust for the feed's https server, besides the system's (a self-signed one)")
	server := fs.String("server", "http://127.0.0.1:8080", "rankd's address")
	token := fs.String("token", "", "an admin or judge token of rankd (default: $RANKD_ADMIN_TOKEN, else $RANKD_JUDGE_TOKEN)")
	contest := fs.String("contest", "", "the contest to post to (default: the id of the feed's contest event)")
	delay := fs.Duration("delay", 100*time.Millisecond, "the longest a line waits before it is posted")
	batch := fs.Int("batch", 1000, "lines per request at most")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	src, err := url.Parse(*from)
	if *from == "" || err != nil || (src.Scheme != "http" && src.Scheme != "https") || fs.NArg() > 0 {
		fmt.Fprintln(m.Stderr, "rankd follow: --from URL is required, an http or https address (and flags come before other arguments)")
		fs.Usage()
		return errUsage
	}
	if *batch < 1 || *delay <= 0 {
		fmt.Fprintln(m.Stderr, "rankd follow: --batch must be at least 1 line and --delay more than 0")
		return errUsage
	}
	base, err := serverURL(*server)
	if err != nil {
		return m.badFlag("follow", err)
	}
	tokenFrom := postingToken(token)
	if *token == "" {
		fmt.Fprintln(m.Stderr, "rankd follow: give rankd's token: --token, or RANKD_ADMIN_TOKEN or RANKD_JUDGE_TOKEN in the environment")
		return errUsage
	}
	*fromAuth = cmp.Or(*fromAuth, os.Getenv("RANKD_FROM_AUTH"))
	*fromToken = cmp.Or(*fromToken, os.Getenv("RANKD_FROM_TOKEN"))
	user, password, hasAuth := strings.Cut(*fromAuth, ":")
	if *fromAuth != "" && !hasAuth {
		fmt.Fprintln(m.Stderr, "rankd follow: --from-auth must be USER:PASSWORD")
		return errUsage
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.ResponseHeaderTimeout = time.Minute
	if *fromCA != "" {
		if transport.TLSClientConfig, err = trusting(*fromCA); err != nil {
			return m.badFlag("follow", fmt.Errorf("--from-ca: %w", err))
		}
	}
	// The feed's reader and the relay report on their own goroutines.
	stderr := &lockedWriter{w: m.Stderr}
	feed := &feedSource{url: src, client: &http.Client{Transport: transport}, silence: feedSilence, stderr: stderr, authorize: func(req *http.Request) {
		switch {
		case *fromAuth != "":
			req.SetBasicAuth(user, password)
		case *fromToken != "":
			req.Header.Set("Authorization", "Bearer "+*fromToken)
		}
	}}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lines := make(chan []byte, 4*(*batch))
	feedErr := make(chan error, 1)
	go func() {
		defer close(lines)
		feedErr <- feed.run(ctx, lines)
	}()
	r := relay{
		importer: importer{command: "follow", client: &http.Client{Timeout: 5 * time.Minute}, token: *token, tokenFrom: tokenFrom, stderr: stderr},
		server:   base, delay: *delay, batch: *batch, fromStart: feed.fromStart,
	}
	r.setContest(*contest)
	err = r.run(ctx, lines)
	cancel()
	if ferr := <-feedErr; ferr != nil {
		err = ferr // why the lines stopped
	}
	r.report(true)
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "followed %s into contest %s until its end: %d lines, %d accepted, %d duplicates, %d rejected%s\n",
		*from, r.contest, r.sent, r.accepted, r.duplicates, r.rejected, r.retokenedNote())
	return nil
}

// feedHead is what the relay reads of a feed line: how to resume after it, and whether it ends the feed.
type feedHead struct {
	Type  string          `json:"type"`
	ID    json.RawMessage `json:"id"`
	Op    string          `json:"op"` // only in 2020-03 feeds, whose id is the event's
	Token string          `json:"token"`
	Data  json.RawMessage `json:"data"`
}

// trusting returns a TLS configuration that trusts the certificates of a PEM file besides the system's.
func trusting(pemFile string) (*tls.Config, error) {
	data, err := os.ReadFile(pemFile)
	if err != nil {
		return nil, err
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool() // no system certificates here: the file's only
	}
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("%s holds no PEM certificate", pemFile)
	}
	return &tls.Config{RootCAs: pool}, nil
}

// feedSource reads an event feed, connecting again when its connection ends before the feed does.
type feedSource struct {
	url       *url.URL
	client    *http.Client
	authorize func(*http.Request)
	silence   time.Duration // how long the feed may send nothing before its connection is taken for dead
	stderr    io.Writer
	// param and after say where to resume: since_token or since_id, after the last line passed on.
	param, after string
	ended        bool // the feed said end_of_updates

	mu      sync.Mutex
	again   bool                    // read the feed again from its start (see fromStart)
	stopped bool                    // run returned
	cancel  context.CancelCauseFunc // ends the connection being read
}

// fromStart makes the feed be read again from its start, at once (rankd's log went back), and reports
// whether it will be: not once the feed stopped.
func (f *feedSource) fromStart() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return false
	}
	f.again = true
	if f.cancel != nil {
		f.cancel(errFromStart)
	}
	return true
}

// stop reports whether the feed that ended stops: not when it is to be read again meanwhile.
func (f *feedSource) stop() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = !f.again
	return f.stopped
}

// Feeds send a newline at least every 120 s (the CCS specification); a connection silent for longer than
// feedSilence is taken for dead.
const feedSilence = 5 * time.Minute

var (
	// errFeedRefused is a feed's answer that another try would get again.
	errFeedRefused = errors.New("the feed's server refused")
	errFeedSilent  = errors.New("the feed sent nothing")
	// errFromStart is a feed that cannot resume where it stopped: read from its start at once.
	errFromStart = errors.New("the feed cannot resume")
)

// run sends the feed's lines to out, connecting again after a dropped connection, until the feed ends, ctx is
// done, or the feed's server refuses.
func (f *feedSource) run(ctx context.Context, out chan<- []byte) error {
	defer func() {
		f.mu.Lock()
		f.stopped = true
		f.mu.Unlock()
	}()
	failures := 0
	for {
		read, err := f.connect(ctx, out)
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, errFromStart):
			continue
		case f.ended && f.stop():
			return nil
		case f.ended:
			continue // to be read again from its start
		case errors.Is(err, errFeedRefused):
			return err
		}
		if read {
			failures = 0
		}
		failures++
		wait := min(time.Duration(1<<min(failures-1, 5))*time.Second, 30*time.Second)
		what := "the feed's connection ended"
		var cert *tls.CertificateVerificationError
		switch {
		case errors.As(err, &cert):
			what = err.Error() + " (give the certificate to trust with --from-ca FILE)"
		case err != nil:
			what = err.Error()
		}
		where := "from its start"
		if f.after != "" {
			where = fmt.Sprintf("after %s %s", strings.TrimPrefix(f.param, "since_"), f.after)
		}
		fmt.Fprintf(f.stderr, "rankd follow: %s; connecting again in %s, %s\n", what, wait, where)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// connect reads the feed once, from where it stopped, until its connection ends; read says a line came.
func (f *feedSource) connect(ctx context.Context, out chan<- []byte) (read bool, err error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	f.mu.Lock()
	f.cancel = cancel
	if f.again {
		f.again, f.param, f.after, f.ended = false, "", "", false
	}
	f.mu.Unlock()
	u := *f.url
	q := u.Query()
	q.Del("since_token")
	q.Del("since_id")
	if f.after != "" {
		q.Set(f.param, f.after)
	}
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, "GET", u.String(), nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "application/x-ndjson, application/json")
	f.authorize(req)
	resp, err := f.client.Do(req)
	if err != nil {
		if errors.Is(context.Cause(ctx), errFromStart) {
			return false, errFromStart
		}
		return false, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusBadRequest && f.after != "":
		// The feed's server does not know where to resume (its database reloaded, say): from the start, then;
		// rankd answers what it has already as duplicates.
		fmt.Fprintf(f.stderr, "rankd follow: the feed cannot resume after %s (%s): reading it from its start\n", f.after, resp.Status)
		f.param, f.after = "", ""
		return false, errFromStart
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return false, fmt.Errorf("%w %s (%s): give its credentials with --from-auth USER:PASSWORD or --from-token", errFeedRefused, f.url.Redacted(), resp.Status)
	case resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests:
		return false, fmt.Errorf("%w %s (%s)", errFeedRefused, f.url.Redacted(), resp.Status)
	case resp.StatusCode != http.StatusOK:
		return false, fmt.Errorf("the feed's server answered %s", resp.Status)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/html" {
		return false, fmt.Errorf("%w %s: it answered a web page, not an event feed (DOMjudge's is at /api/v4/contests/ID/event-feed)", errFeedRefused, f.url.Redacted())
	}
	silence := time.AfterFunc(f.silence, func() { cancel(errFeedSilent) })
	defer silence.Stop()
	br := bufio.NewReaderSize(resp.Body, 1<<16)
	for {
		silence.Reset(f.silence)
		text, err := br.ReadBytes('\n')
		// The time a line waits for rankd (down, or slow) is no silence of the feed.
		silence.Stop()
		// A last line cut short by a broken connection is not taken: it comes again, whole, after the line
		// before it.
		if line := bytes.TrimSpace(text); len(line) > 0 && (err == nil || json.Valid(line)) {
			if !read && notAnEvent(line) {
				return false, fmt.Errorf("%w %s: its answer is not an event feed (its first line is not an event): "+
					"the feed is at .../contests/ID/event-feed", errFeedRefused, f.url.Redacted())
			}
			select {
			case out <- line:
			case <-ctx.Done():
				return read, context.Cause(ctx)
			}
			// Noted once passed on: a line that was not is read again after the one before it.
			read = true
			if f.note(line); f.ended {
				return read, nil // the feed has nothing more to say, though its connection may stay open
			}
		}
		switch {
		case errors.Is(context.Cause(ctx), errFromStart):
			return read, errFromStart
		case err == io.EOF:
			return read, nil
		case errors.Is(context.Cause(ctx), errFeedSilent):
			return read, fmt.Errorf("%w for %s", errFeedSilent, f.silence)
		case err != nil:
			return read, fmt.Errorf("the feed's connection broke: %w", err)
		}
	}
}

// notAnEvent reports whether a whole line is no event of a feed (an object with a type): a feed's first line
// is one, and another address of the API (the contest's, pretty-printed or not) answers something else.
func notAnEvent(line []byte) bool {
	var h map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimPrefix(line, []byte("\ufeff")), &h) != nil {
		return true // not JSON, or an array, a string, ...
	}
	_, typed := h["type"]
	return !typed
}

// note remembers where to resume after a line, and whether it ends the feed.
func (f *feedSource) note(line []byte) {
	var h feedHead
	if json.Unmarshal(line, &h) != nil {
		return // rankd says what is wrong with it when it is posted
	}
	var id string
	switch {
	case h.Op != "" && json.Unmarshal(h.ID, &id) == nil && id != "":
		f.param, f.after = "since_id", id
	case h.Token != "":
		f.param, f.after = "since_token", h.Token
	}
	if h.Type == "state" {
		var st struct {
			EndOfUpdates *string `json:"end_of_updates"`
		}
		if json.Unmarshal(h.Data, &st) == nil && st.EndOfUpdates != nil {
			f.ended = true
		}
	}
}

// relay posts the lines it is given to rankd in batches.
type relay struct {
	importer
	server, contest string
	delay           time.Duration
	batch           int
	held            [][]byte // lines read before the contest's id is known
	defined         bool     // a line sent defines the contest
	lastReport      time.Time
	lastShown       string // the last report, not said again
	// fromStart has the feed read again from its start, and reports whether it will be (see
	// feedSource.fromStart).
	fromStart func() bool
}

// maxHeld bounds the lines held while the relay looks for the feed's contest event.
const maxHeld = 10000

// setContest sets the contest the lines go to.
func (r *relay) setContest(id string) {
	r.contest = id
	// Every result, not only the problems: the positions of the events accepted say whether the server's log
	// went back (see importer.behind).
	r.url = r.server + "/api/v1/contests/" + url.PathEscape(id) + "/events?taken_tokens=drop"
}

// run posts lines as they come until lines is closed or ctx is done.
func (r *relay) run(ctx context.Context, lines <-chan []byte) error {
	var buf bytes.Buffer
	count := 0
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	// carried: the batch holds lines sent before, which wait for the next line; waiting: since the first
	// carried batch, until the contest line comes; runs: the batch holds a submission or a judgement, which a
	// feed sends after its contest line, so that a contest still unknown then is not coming.
	carried, waiting, runs := false, false, false
	// flush posts the batch; last: no line comes after it (the feed ended), so none is waited for.
	flush := func(last bool) error {
		if count == 0 {
			return nil
		}
		timer.Stop()
		err := r.post(ctx, buf.Bytes(), r.sent+1)
		var pe *postError
		if errors.As(err, &pe) && pe.status == http.StatusNotFound && !r.defined && !runs && !last && count < maxHeld && buf.Len() < maxImportBody {
			// Lines before the feed's contest line (a state, in real feeds), for a contest the server does
			// not have yet: they go again with the next lines, until the contest line comes with them.
			if !waiting {
				fmt.Fprintf(r.stderr, "rankd follow: the server has no contest %s yet: the feed's first lines wait for its contest line\n", r.contest)
			}
			carried, waiting = true, true
			return nil
		}
		if err != nil {
			return err // not taken: the command stops, saying why, with what was taken before
		}
		carried, runs = false, false
		r.sent += count
		buf.Reset()
		count = 0
		r.report(false)
		if r.behind {
			// The server's log is behind what it acknowledged (restored from an older backup, or the contest
			// deleted and created again): the lines it lost come again, with those it has, as duplicates.
			r.behind = false
			const what = "rankd follow: the server accepted an event at a log position before one it acknowledged: its log went back (restored from an older backup?)"
			if !r.fromStart() {
				return fmt.Errorf("%s, and the feed has ended: run rankd follow again to send the feed from its start", strings.TrimPrefix(what, "rankd follow: "))
			}
			fmt.Fprintln(r.stderr, what+"; reading the feed again from its start")
		}
		return nil
	}
	// add puts a line in the batch, which goes when full or, at the latest, after the delay.
	add := func(line []byte) error {
		if count == 0 || carried {
			timer.Reset(r.delay)
			carried = false
		}
		r.defined = r.defined || feedLineContest(line) != ""
		runs = runs || !r.defined && (bytes.Contains(line, []byte(`"type":"submissions"`)) || bytes.Contains(line, []byte(`"type":"judgements"`)))
		buf.Write(line)
		buf.WriteByte('\n')
		// Lines carried wait for the contest line, or the delay: not sent again with every line.
		full := count+1 >= r.batch && (r.defined || !waiting)
		if count++; full || buf.Len() >= maxImportBody {
			return flush(false)
		}
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case line, ok := <-lines:
			switch {
			case !ok && ctx.Err() != nil:
				return ctx.Err()
			case !ok && r.contest == "":
				return errors.New("the feed ended without defining its contest: give --contest ID")
			case !ok:
				return flush(true)
			case r.contest != "":
				if err := add(line); err != nil {
					return err
				}
				continue
			}
			// The lines before the contest's id is known wait for it.
			if r.held = append(r.held, line); len(r.held) > maxHeld {
				return fmt.Errorf("the feed's first %d lines define no contest: give --contest ID", maxHeld)
			}
			if id := feedLineContest(line); id != "" {
				r.setContest(id)
				for _, l := range r.held {
					if err := add(l); err != nil {
						return err
					}
				}
				r.held = nil
			}
		case <-timer.C:
			if err := flush(false); err != nil {
				return err
			}
		}
	}
}

// post sends a batch, trying again for as long as rankd is unreachable or unavailable: the feed waits.
func (r *relay) post(ctx context.Context, body []byte, first int) error {
	for attempt := 0; ; attempt++ {
		again, err := r.send(ctx, body, first)
		if err == nil || !again || ctx.Err() != nil {
			var pe *postError
			switch {
			case errors.As(err, &pe) && pe.status == http.StatusNotFound && r.defined:
				return fmt.Errorf("%w: the server no longer has contest %s, which the feed defined (its data lost?): run rankd follow again to send the feed from its start", err, r.contest)
			case errors.As(err, &pe) && pe.status == http.StatusNotFound:
				return fmt.Errorf("%w: the server has no contest %s, and the feed has not defined it", err, r.contest)
			}
			return err
		}
		wait := min(time.Duration(1<<min(attempt, 5))*time.Second, 30*time.Second)
		fmt.Fprintf(r.stderr, "rankd follow: %s; trying again in %s\n", fromLine(first, err), wait)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// report says, at most every 10 s and at the end, what rankd took of the feed.
func (r *relay) report(last bool) {
	if !last && time.Since(r.lastReport) < 10*time.Second || r.sent == 0 {
		return
	}
	msg := fmt.Sprintf("rankd follow: %d lines: %d accepted, %d duplicates, %d rejected\n", r.sent, r.accepted, r.duplicates, r.rejected)
	if msg == r.lastShown {
		return // said already: nothing came since
	}
	r.lastReport, r.lastShown = time.Now(), msg
	fmt.Fprint(r.stderr, msg)
}

// feedLineContest returns the id of the contest a feed line defines, or "".
func feedLineContest(line []byte) string {
	var h feedHead
	if json.Unmarshal(line, &h) != nil || (h.Type != "contest" && h.Type != "contests") {
		return ""
	}
	var c struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(h.Data, &c) != nil {
		return ""
	}
	return c.ID
}

// lockedWriter serializes the writes of several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
