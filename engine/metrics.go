package engine

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"rankd"
)

// Metrics are the engine's Prometheus metrics. A nil *Metrics records nothing.
type Metrics struct {
	ingest      *prometheus.CounterVec
	commit      prometheus.Histogram
	commitSize  prometheus.Histogram
	apply       prometheus.Histogram
	boardTeams  *prometheus.Desc
	boardSubs   *prometheus.Desc
	boardPos    *prometheus.Desc
	boardSeq    *prometheus.Desc
	contestsFor func() []*contest
}

// NewMetrics registers the engine's metrics with reg; the engine given them reports its boards.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		ingest: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rankd_ingest_events_total",
			Help: "Events submitted to the engine, by outcome (accepted, duplicate, rejected; unavailable: not stored, the store failing).",
		}, []string{"status"}),
		commit: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "rankd_commit_seconds",
			Help:    "Time to make one batch of events durable and apply it (group commit), lock held.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16),
		}),
		commitSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "rankd_commit_events",
			Help:    "Events per commit.",
			Buckets: prometheus.ExponentialBuckets(1, 4, 8),
		}),
		apply: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "rankd_apply_seconds",
			Help:    "Time to apply one event to a board (one event in 16 is timed).",
			Buckets: prometheus.ExponentialBuckets(1e-7, 4, 10),
		}),
		boardTeams: prometheus.NewDesc("rankd_board_teams", "Teams defined on a contest's board.", []string{"contest"}, nil),
		boardSubs:  prometheus.NewDesc("rankd_board_submissions", "Submissions held by a contest's board.", []string{"contest"}, nil),
		boardPos:   prometheus.NewDesc("rankd_board_log_position", "The log position a contest's board has applied.", []string{"contest"}, nil),
		boardSeq:   prometheus.NewDesc("rankd_board_sequence", "The sequence number of a contest's view.", []string{"contest", "view"}, nil),
	}
	reg.MustRegister(m.ingest, m.commit, m.commitSize, m.apply, m)
	// Each status counted from 0, so that the first failures show as an increase (a series that appears with
	// them does not, to Prometheus' increase()).
	for _, s := range []string{StatusAccepted, StatusDuplicate, StatusRejected, ingestUnavailable} {
		m.ingest.WithLabelValues(s)
	}
	return m
}

// attach makes the board gauges report the contests of e.
func (m *Metrics) attach(e *Engine) {
	m.contestsFor = func() []*contest {
		e.mu.RLock()
		defer e.mu.RUnlock()
		all := make([]*contest, 0, len(e.contests))
		for _, c := range e.contests {
			all = append(all, c)
		}
		return all
	}
}

// Describe implements prometheus.Collector for the board gauges.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.boardTeams
	ch <- m.boardSubs
	ch <- m.boardPos
	ch <- m.boardSeq
}

// Collect implements prometheus.Collector: it reads each board's sizes under its lock, waiting for it at
// most gaugeWait; a board whose lock a commit holds longer (a store that hangs) is reported as last read,
// so that a scrape does not hang with the store.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	if m.contestsFor == nil {
		return
	}
	all := m.contestsFor()
	reads := make([]<-chan *gauges, len(all))
	for i, c := range all {
		reads[i] = c.readGauges()
	}
	ctx, cancel := context.WithTimeout(context.Background(), gaugeWait)
	defer cancel()
	for i, c := range all {
		var g *gauges
		select {
		case g = <-reads[i]:
		case <-ctx.Done():
			if g = c.gauges.Load(); g == nil {
				continue // never read yet
			}
		}
		ch <- prometheus.MustNewConstMetric(m.boardTeams, prometheus.GaugeValue, float64(g.teams), c.id)
		ch <- prometheus.MustNewConstMetric(m.boardSubs, prometheus.GaugeValue, float64(g.submissions), c.id)
		ch <- prometheus.MustNewConstMetric(m.boardPos, prometheus.GaugeValue, float64(g.pos), c.id)
		ch <- prometheus.MustNewConstMetric(m.boardSeq, prometheus.GaugeValue, float64(g.public), c.id, "public")
		ch <- prometheus.MustNewConstMetric(m.boardSeq, prometheus.GaugeValue, float64(g.jury), c.id, "jury")
	}
}

// gaugeWait bounds how long a scrape waits for the lock of a contest's board.
const gaugeWait = time.Second

// gauges are what the metrics report of a contest's board.
type gauges struct {
	teams, submissions int
	pos                int64
	public, jury       uint64
}

// readGauges reads c's gauges under its lock, on a goroutine of its own, and keeps them as the last read.
func (c *contest) readGauges() <-chan *gauges {
	read := make(chan *gauges, 1)
	go func() {
		c.mu.RLock()
		g := &gauges{teams: len(c.board.Teams()), submissions: c.board.Stats().Submissions, pos: c.pos,
			public: c.board.Seq(rankd.PublicView), jury: c.board.Seq(rankd.JuryView)}
		c.mu.RUnlock()
		c.gauges.Store(g)
		read <- g
	}()
	return read
}

func (m *Metrics) observeApply(d time.Duration) {
	if m != nil {
		m.apply.Observe(d.Seconds())
	}
}

func (m *Metrics) observeCommit(d time.Duration, n int) {
	if m != nil {
		m.commit.Observe(d.Seconds())
		m.commitSize.Observe(float64(n))
	}
}

func (m *Metrics) countIngest(status string) {
	if m != nil {
		m.ingest.WithLabelValues(status).Inc()
	}
}
