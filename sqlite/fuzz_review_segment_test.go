package sqlite

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/klauspost/compress/s2"

	"rankd"
)

// FuzzSegmentDecode decodes arbitrary segments (keys, data and the count of the segments table): a damaged
// one is refused with errBadSegment, never a panic or an allocation its bytes cannot justify.
func FuzzSegmentDecode(f *testing.F) {
	var w segmentWriter
	w.reset()
	sub := &rankd.Submission{ID: "s1", TeamID: "t1", ProblemID: "A", Time: 90 * time.Second}
	w.add(&rankd.LogEntry{Event: rankd.Event{Type: rankd.EventSubmission, ID: "s1", Submission: sub},
		Data: []byte(`{"type":"submissions","id":"s1","data":{"id":"s1"}}`), Token: "tok1"}, string(appendHash(nil, "0a1b")))
	w.add(&rankd.LogEntry{Event: rankd.Event{Type: rankd.EventSubmission, ID: "s1", Delete: true},
		Data: []byte(`{"type":"submissions","id":"s1","data":null}`)}, string(appendHash(nil, "not hex")))
	w.add(&rankd.LogEntry{Event: rankd.Event{Type: rankd.EventTeam, ID: "t1"}, Data: []byte(`{}`)}, string(appendHash(nil, "")))
	for _, l := range layouts(&w) {
		f.Add(l.keys, l.data, int64(w.count))
		f.Add(l.keys, l.data, int64(1<<40))
	}
	f.Add([]byte{keysPlain, 1, 0, 0, 0, listNone}, []byte{dataPlain, 0}, int64(1))
	f.Fuzz(func(t *testing.T, keys, data []byte, count int64) {
		if int64(int(count)) != count {
			return
		}
		var d segmentDecoder
		entries, err := d.decode(keys, data, 1, int(count), time.Unix(0, 0))
		if err != nil {
			if !errors.Is(err, errBadSegment) {
				t.Fatalf("got %v, want %v", err, errBadSegment)
			}
			return
		}
		if int64(len(entries)) != count {
			t.Fatalf("got %d entries, want %d", len(entries), count)
		}
	})
}

// layout is a segment's two columns in one of the formats rankd writes or once wrote.
type layout struct{ keys, data []byte }

// layouts returns the segment w holds in every format: checked (what rankd writes), and the unchecked ones
// of earlier versions, plain and compressed, whose keys start with keysPlain. The fuzzers need these: a
// change to a checked segment stops at its checksum.
func layouts(w *segmentWriter) []layout {
	plainKeys := append([]byte{keysPlain}, w.keys[1:]...)
	unchecked := []layout{
		{plainKeys, append([]byte{dataPlain}, w.data...)},
		{plainKeys, append([]byte{dataS2}, s2.Encode(nil, w.data)...)},
	}
	keys, data := w.columns()
	return append(unchecked, layout{bytes.Clone(keys), bytes.Clone(data)})
}

// FuzzSegmentRoundTrip writes entries into a segment, in every format, and checks that the decoder and the
// key reader give back what was written.
func FuzzSegmentRoundTrip(f *testing.F) {
	f.Add(uint8(rankd.EventSubmission), "s1", "tok", "0a1b2c", "t1", "A", int64(90000), []byte(`{"type":"submissions"}`), uint8(0), uint8(3))
	f.Add(uint8(rankd.EventSubmission), "", "", "ABC", "t\x00", "", int64(-5), []byte{}, uint8(1), uint8(1))
	f.Add(uint8(rankd.EventJudgement), "j1", "", "", "", "", int64(0), []byte("x"), uint8(2), uint8(2))
	f.Fuzz(func(t *testing.T, typ uint8, id, token, hash, team, problem string, ms int64, data []byte, kind, n uint8) {
		var w segmentWriter
		w.reset()
		var want []rankd.LogEntry
		for i := range int(n%4) + 1 {
			e := rankd.LogEntry{Event: rankd.Event{Type: rankd.EventType(typ), ID: id}, Token: token, Hash: hash,
				Data: append(bytes.Clone(data), byte(i))}
			switch (int(kind) + i) % 3 {
			case 1:
				e.Event.Type = rankd.EventSubmission
				e.Event.Submission = &rankd.Submission{ID: id + "#", TeamID: team, ProblemID: problem, Time: time.Duration(ms) * time.Millisecond}
			case 2:
				e.Event.Type, e.Event.Delete = rankd.EventSubmission, true
			}
			w.add(&e, string(appendHash(nil, hash)))
			want = append(want, e)
		}
		all := layouts(&w)
		for _, l := range all {
			var d segmentDecoder
			got, err := d.decode(l.keys, l.data, 7, w.count, time.Unix(0, 0))
			if err != nil {
				t.Fatalf("decoding what was written (formats %d, %d): %v", l.keys[0], l.data[0], err)
			}
			if len(got) != len(want) {
				t.Fatalf("got %d entries, want %d", len(got), len(want))
			}
			for i := range got {
				g, w := &got[i], &want[i]
				if g.Pos != 7+int64(i) || g.Token != w.Token || g.Hash != w.Hash || !bytes.Equal(g.Data, w.Data) {
					t.Fatalf("entry %d: got pos %d token %q hash %q data %q, want pos %d token %q hash %q data %q",
						i, g.Pos, g.Token, g.Hash, g.Data, 7+i, w.Token, w.Hash, w.Data)
				}
			}
		}
		keys, err := checkedKeys(all[len(all)-1].keys)
		if err != nil {
			t.Fatalf("checking the keys written: %v", err)
		}
		r := newKeyReader(string(keys))
		for i, e := range want {
			var k keyRecord
			if err := r.next(&k); err != nil {
				t.Fatalf("keys of entry %d: %v", i, err)
			}
			ev := &e.Event
			wantRec := keyRecord{typ: ev.Type, id: ev.ID, token: e.Token, hash: string(appendHash(nil, e.Hash))}
			switch {
			case ev.Delete:
				wantRec.list, wantRec.subID = listDelete, submissionID(ev)
			case ev.Submission != nil:
				s := ev.Submission
				wantRec.list, wantRec.subID, wantRec.team, wantRec.problem, wantRec.ms = listPut, submissionID(ev), s.TeamID, s.ProblemID, s.Time.Milliseconds()
			}
			if k != wantRec {
				t.Fatalf("keys of entry %d: got %+v, want %+v", i, k, wantRec)
			}
		}
		if err := r.end(); err != nil {
			t.Fatalf("keys after the last entry: %v", err)
		}
	})
}
