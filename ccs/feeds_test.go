package ccs_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"

	"rankd"
	"rankd/ccs"
	"rankd/ccs/ccstest"
)

// TestRealFeeds reads the two real feeds to the end: no line may fail, and the counts are those of the
// contests (see shared/data/SOURCES.md).
func TestRealFeeds(t *testing.T) {
	for _, tc := range []struct {
		feed    string
		counts  map[rankd.EventType]int
		skipped map[string]int
	}{
		{"euc2025", map[rankd.EventType]int{
			rankd.EventContest: 5, rankd.EventJudgementType: 8, rankd.EventProblem: 11, rankd.EventGroup: 6,
			rankd.EventOrganization: 55, rankd.EventTeam: 130, rankd.EventSubmission: 856, rankd.EventJudgement: 1711,
			rankd.EventState: 7, rankd.EventAward: 11,
		}, map[string]int{"languages": 5, "clarifications": 5, "accounts": 1}},
		{"wf47", map[rankd.EventType]int{
			rankd.EventContest: 5, rankd.EventJudgementType: 8, rankd.EventProblem: 22, rankd.EventGroup: 29,
			rankd.EventOrganization: 131, rankd.EventTeam: 302, rankd.EventSubmission: 1606, rankd.EventJudgement: 9699,
			rankd.EventState: 4,
		}, map[string]int{"languages": 5, "clarifications": 3, "start-status": 10, "map-info": 1}},
	} {
		t.Run(tc.feed, func(t *testing.T) {
			evs, errs, r := readAll(t, string(MustReadFeed(t, tc.feed)))
			for _, err := range errs {
				t.Errorf("unexpected error: %v", err)
			}
			counts := map[rankd.EventType]int{}
			for _, ev := range evs {
				counts[ev.Type]++
			}
			for typ, n := range tc.counts {
				if counts[typ] != n {
					t.Errorf("%d %s events, want %d", counts[typ], typ, n)
				}
			}
			if len(counts) != len(tc.counts) {
				t.Errorf("event counts %v, want %v", counts, tc.counts)
			}
			skipped := r.Skipped()
			for typ, n := range tc.skipped {
				if skipped[typ] != n {
					t.Errorf("skipped %d %s lines, want %d", skipped[typ], typ, n)
				}
			}
			if len(skipped) != len(tc.skipped) {
				t.Errorf("skipped %v, want %v", skipped, tc.skipped)
			}
		})
	}
}

// TestRealFeedsRoundTrip writes every event of the real feeds, reads the result back and compares event by
// event, and checks every written line against the 2023-06 event-feed schema.
func TestRealFeedsRoundTrip(t *testing.T) {
	v := ccstest.SchemaValidator(t, "event-feed.json")
	for _, feed := range feeds {
		t.Run(feed, func(t *testing.T) {
			evs, errs, _ := readAll(t, string(MustReadFeed(t, feed)))
			if len(errs) != 0 {
				t.Fatalf("reading: %v", errs)
			}
			var buf bytes.Buffer
			w := ccs.NewWriter(&buf)
			for _, ev := range evs {
				if err := w.Write(ev); err != nil {
					t.Fatalf("Write(%s): %v", show(ev), err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			written := buf.Bytes()
			back, errs, _ := readAll(t, string(written))
			if len(errs) != 0 {
				t.Fatalf("reading back: %v", errs)
			}
			if len(back) != len(evs) {
				t.Fatalf("read back %d events, wrote %d", len(back), len(evs))
			}
			for i := range evs {
				if !sameEvent(back[i], evs[i]) {
					t.Errorf("event %d:\n got %s\nwant %s", i, show(back[i]), show(evs[i]))
				}
			}
			sc := bufio.NewScanner(bytes.NewReader(written))
			sc.Buffer(nil, ccs.MaxLineSize)
			withLanguage := 0
			for i := 0; sc.Scan(); i++ {
				if s := evs[i].Submission; s != nil && s.LanguageID == "" {
					checkWithoutLanguage(t, v, sc.Bytes())
					continue
				}
				if evs[i].Submission != nil {
					withLanguage++
				}
				v.Validate(t, sc.Bytes())
			}
			t.Logf("%d submissions with a language_id, all valid as written", withLanguage)
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// BenchmarkReadFeed reads the real feeds from memory; events/s counts the events handed out (skipped lines
// excluded).
func BenchmarkReadFeed(b *testing.B) {
	for _, feed := range feeds {
		data := MustReadFeed(b, feed)
		b.Run(feed, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			events := 0
			for b.Loop() {
				r := ccs.NewReader(bytes.NewReader(data))
				for {
					_, err := r.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					events++
				}
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkWriteFeed writes the events of the real feeds.
func BenchmarkWriteFeed(b *testing.B) {
	for _, feed := range feeds {
		evs, errs, _ := readAll(b, string(MustReadFeed(b, feed)))
		if len(errs) != 0 {
			b.Fatal(errs)
		}
		b.Run(feed, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				w := ccs.NewWriter(io.Discard)
				for _, ev := range evs {
					if err := w.Write(ev); err != nil {
						b.Fatal(err)
					}
				}
				w.Flush()
				n += len(evs)
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
