package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"rankd"
)

// Traffic makes the entries of a contest's usual ingest traffic, as the engine hands them to the store: CCS
// event-feed lines of 200 to 300 bytes, hashed the engine's way (hex of 16 bytes of SHA-256), without
// tokens. Every submission is new and is followed by its judgement; one judgement in ten is first sent
// without a verdict and sent again, under the same id, with its verdict some entries later.
type Traffic struct {
	next    int   // the next submission's number
	judge   bool  // the judgement of the last submission comes next
	resends []int // the submissions whose judgement waits for its verdict, oldest first
	// Tokens gives every entry a token.
	Tokens bool
}

var verdicts = []string{"AC", "WA", "TLE", "WA", "RTE", "AC", "WA", "CE"}

// Entries returns the next n entries.
func (tr *Traffic) Entries(n int) []rankd.LogEntry {
	entries := make([]rankd.LogEntry, 0, n)
	for len(entries) < n {
		switch {
		case tr.judge:
			s := tr.next - 1
			pending := s%10 == 3
			if pending {
				tr.resends = append(tr.resends, s)
			}
			entries = append(entries, tr.judgement(s, !pending))
			tr.judge = false
		// A verdict comes about 20 entries after its pending judgement.
		case len(tr.resends) > 0 && tr.next-tr.resends[0] >= 10:
			entries = append(entries, tr.judgement(tr.resends[0], true))
			tr.resends = tr.resends[1:]
		default:
			entries = append(entries, tr.submission(tr.next))
			tr.next++
			tr.judge = true
		}
	}
	if tr.Tokens {
		for i := range entries {
			entries[i].Token = fmt.Sprintf("cdi%d-%d", tr.next, i)
			entries[i].Event.Token = entries[i].Token
		}
	}
	return entries
}

// trafficTime formats a contest time the CCS way.
func trafficTime(d time.Duration) string {
	ms := d.Milliseconds()
	return fmt.Sprintf("%d:%02d:%02d.%03d", ms/3_600_000, ms/60_000%60, ms/1000%60, ms%1000)
}

func (tr *Traffic) submission(s int) rankd.LogEntry {
	id := fmt.Sprint(1000 + s)
	team := fmt.Sprint(1 + s*7919%130)
	problem := fmt.Sprintf("%c-some-problem-name-%06d", 'A'+s%13, s%13*7717)
	t := time.Duration(s) * 397 * time.Millisecond
	data := fmt.Sprintf(`{"type":"submissions","id":%q,"data":{"id":%q,"problem_id":%q,"team_id":%q,"language_id":"cpp","contest_time":%q,"time":"2025-03-02T09:34:48.183Z"}}`,
		id, id, problem, team, trafficTime(t))
	e := trafficEntry(rankd.EventSubmission, id, data)
	e.Event.Submission = &rankd.Submission{ID: id, TeamID: team, ProblemID: problem, Time: t}
	return e
}

func (tr *Traffic) judgement(s int, verdict bool) rankd.LogEntry {
	id := fmt.Sprint(5000 + s)
	t := trafficTime(time.Duration(s)*397*time.Millisecond + time.Second)
	var data string
	if verdict {
		data = fmt.Sprintf(`{"type":"judgements","id":%q,"data":{"id":%q,"submission_id":"%d","judgement_type_id":%q,"start_contest_time":%q,"start_time":"2025-03-02T09:34:49.110Z","end_contest_time":%q,"end_time":"2025-03-02T09:34:52.297Z"}}`,
			id, id, 1000+s, verdicts[s%len(verdicts)], t, t)
	} else {
		data = fmt.Sprintf(`{"type":"judgements","id":%q,"data":{"id":%q,"submission_id":"%d","start_contest_time":%q,"start_time":"2025-03-02T09:34:49.110Z"}}`,
			id, id, 1000+s, t)
	}
	return trafficEntry(rankd.EventJudgement, id, data)
}

// trafficEntry returns the entry of an object's line, hashed as the engine hashes it.
func trafficEntry(typ rankd.EventType, id, data string) rankd.LogEntry {
	sum := sha256.Sum256([]byte(data))
	return rankd.LogEntry{Event: rankd.Event{Type: typ, ID: id}, Data: []byte(data), Hash: hex.EncodeToString(sum[:16])}
}
