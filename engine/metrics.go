package engine

import (
	"rankd"
	"time"

	"github.com/prometheus/client_golang/prometheus"
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
			Help: "Events submitted to the engine, by outcome (accepted, duplicate, rejected).",
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
	for _, s := range []string{StatusAccepted, StatusDuplicate, StatusRejected} {
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

// Collect implements prometheus.Collector: it reads each board's sizes under its lock.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	if m.contestsFor == nil {
		return
	}
	for _, c := range m.contestsFor() {
		c.mu.RLock()
		st := c.board.Stats()
		teams := len(c.board.Teams())
		pos := c.pos
		pub, jury := c.board.Seq(rankd.PublicView), c.board.Seq(rankd.JuryView)
		c.mu.RUnlock()
		ch <- prometheus.MustNewConstMetric(m.boardTeams, prometheus.GaugeValue, float64(teams), c.id)
		ch <- prometheus.MustNewConstMetric(m.boardSubs, prometheus.GaugeValue, float64(st.Submissions), c.id)
		ch <- prometheus.MustNewConstMetric(m.boardPos, prometheus.GaugeValue, float64(pos), c.id)
		ch <- prometheus.MustNewConstMetric(m.boardSeq, prometheus.GaugeValue, float64(pub), c.id, "public")
		ch <- prometheus.MustNewConstMetric(m.boardSeq, prometheus.GaugeValue, float64(jury), c.id, "jury")
	}
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
