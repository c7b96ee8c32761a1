package http_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"rankd/engine"
	"rankd/finalize"
	rankdhttp "rankd/http"
	"rankd/sqlite"
)

// The operator's documents, read by the tests below: what they name must exist.
var reviewDocs = []string{"../docs/api.md", "../docs/operations.md", "../docs/ccs.md"}

// docRoute is a route as the documents write it: "`GET /path`", "`GET/POST /path`" or "`POST` / `DELETE
// /path`" (a query and what follows it are not part of the route).
var docRoute = regexp.MustCompile("`((?:GET|POST|PATCH|PUT|DELETE)(?:(?:/|` / `)(?:GET|POST|PATCH|PUT|DELETE))*) (/[^`?\\s]*)")

// docMetric is a metric as the documents write it, with its labels, with or without values.
var docMetric = regexp.MustCompile("`(rankd_[a-z_]+)(?:\\{([^}`]*)\\})?")

// mustReadDocs returns the text of each document, by path.
func mustReadDocs(tb testing.TB) map[string]string {
	tb.Helper()
	docs := map[string]string{}
	for _, path := range reviewDocs {
		data, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		docs[path] = string(data)
	}
	return docs
}

type docRequest struct{ doc, method, path string }

// docRequests lists every method and route the documents name, with the test contest's ids in the
// placeholders.
func docRequests(tb testing.TB) []docRequest {
	tb.Helper()
	ids := strings.NewReplacer("{id}", "c1", "{team}", "t1")
	var out []docRequest
	for doc, text := range mustReadDocs(tb) {
		for _, m := range docRoute.FindAllStringSubmatch(text, -1) {
			path := ids.Replace(m[2])
			if strings.Contains(path, "{") {
				tb.Errorf("%s: %s names a placeholder the test does not know", doc, m[0])
				continue
			}
			for method := range strings.FieldsFuncSeq(m[1], func(r rune) bool { return r < 'A' || r > 'Z' }) {
				out = append(out, docRequest{doc, method, path})
			}
		}
	}
	return out
}

// Every request the documents name has a route: the server does not answer it "no such endpoint" (its
// answer to an unknown path, or a known path with another method).
func TestReviewDocsEndpoints(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	reqs := docRequests(t)
	if len(reqs) < 40 {
		t.Fatalf("got %d documented requests, want at least 40: has the way the documents write them changed?", len(reqs))
	}
	for _, r := range reqs {
		if got := routeAnswer(t, e.URL, r.method, r.path); got != "" {
			t.Errorf("%s: %s %s: got %s, want an answer of its route", r.doc, r.method, r.path, got)
		}
	}
}

// routeAnswer sends a request with the admin token and returns "" when a route answered it, else what
// came back. Streams are left once their headers came.
func routeAnswer(tb testing.TB, base, method, path string) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var body io.Reader
	if method == "POST" || method == "PATCH" || method == "PUT" {
		body = strings.NewReader("{}")
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, body)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
		return ""
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	var answer struct{ Code, Message string }
	if err := json.Unmarshal(data, &answer); err != nil || strings.HasPrefix(answer.Message, "no such endpoint") ||
		resp.StatusCode == http.StatusMethodNotAllowed {
		return resp.Status + " " + string(data)
	}
	return "" // the route's own 404: an unknown contest, team or object
}

// describing is a Registerer that notes the metrics registered through it: their names and labels.
type describing struct {
	prometheus.Registerer
	labels map[string][]string
}

var descParts = regexp.MustCompile(`fqName: "([^"]+)".*variableLabels: \{([^}]*)\}\}$`)

func (d *describing) Register(c prometheus.Collector) error {
	ch := make(chan *prometheus.Desc)
	go func() {
		c.Describe(ch)
		close(ch)
	}()
	for desc := range ch {
		if m := descParts.FindStringSubmatch(desc.String()); m != nil {
			d.labels[m[1]] = strings.FieldsFunc(m[2], func(r rune) bool { return r == ',' })
		}
	}
	return d.Registerer.Register(c)
}

func (d *describing) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := d.Register(c); err != nil {
			panic(err)
		}
	}
}

// mustRegisteredMetrics wires a store, an engine, a finalization service and a server as rankd serve does,
// and returns the rankd metrics they register, with their labels.
func mustRegisteredMetrics(tb testing.TB) map[string][]string {
	tb.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Error(err)
		}
	})
	reg := &describing{Registerer: prometheus.NewRegistry(), labels: map[string][]string{}}
	e := engine.New(db, engine.NewMetrics(reg))
	auth, err := rankdhttp.NewAuth(rankdhttp.Config{}, adminToken, judgeToken, db)
	if err != nil {
		tb.Fatal(err)
	}
	rankdhttp.NewServer(e, db, auth, reg, prometheus.NewRegistry())
	svc, err := finalize.OpenSQLite(ctx, filepath.Join(tb.TempDir(), "jobs.db"), finalize.Config{Store: db, Builder: e})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := svc.Stop(ctx); err != nil {
			tb.Error(err)
		}
	})
	reg.MustRegister(svc.Collector(e.ContestIDs))
	return reg.labels
}

// Every metric the documents name is registered, with the labels they give it; and the API's list names
// every metric rankd registers.
func TestReviewDocsMetrics(t *testing.T) {
	registered := mustRegisteredMetrics(t)
	docs := mustReadDocs(t)
	for doc, text := range docs {
		for _, m := range docMetric.FindAllStringSubmatch(text, -1) {
			labels, ok := registered[m[1]]
			if !ok {
				t.Errorf("%s: metric %s: got none registered, want one", doc, m[1])
				continue
			}
			for label := range strings.SplitSeq(m[2], ",") {
				name, _, _ := strings.Cut(strings.TrimSpace(label), "=")
				if name != "" && !slices.Contains(labels, name) {
					t.Errorf("%s: metric %s: got labels %v, want %q among them", doc, m[1], labels, name)
				}
			}
		}
	}
	for name := range registered {
		if !strings.Contains(docs["../docs/api.md"], "`"+name) {
			t.Errorf("docs/api.md: metric %s: got it left out, want it in the list of metrics", name)
		}
	}
}
