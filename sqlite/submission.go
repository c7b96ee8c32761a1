package sqlite

import (
	"context"

	"rankd"
)

// Submissions returns a page of a contest's submissions, ordered by contest time then id (bytewise); see
// rankd.SubmissionStore. Times have the log's precision, milliseconds. An unknown contest has none. The
// list is the contest's index in memory (read from the log when first needed): the whole list and a
// team's are kept in order, so that a page costs its offset and its length; a problem's submissions are
// the list's, filtered.
func (db *DB) Submissions(ctx context.Context, contestID string, f rankd.SubmissionFilter) ([]rankd.SubmissionRecord, error) {
	if f.Offset < 0 {
		return nil, rankd.Errorf(rankd.EINVALID, "offset %d is negative", f.Offset)
	}
	x, err := db.readIndex(ctx, contestID)
	if err != nil {
		return nil, fail(ctx, "submissions", err)
	}
	if x == nil {
		return nil, nil
	}
	x.listMu.RLock()
	defer x.listMu.RUnlock()
	list := x.subs.all
	if f.TeamID != "" {
		list = x.subs.team[f.TeamID]
	}
	var subs []rankd.SubmissionRecord
	skip := f.Offset
	for _, s := range list {
		if f.ProblemID != "" && s.ProblemID != f.ProblemID {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		subs = append(subs, *s)
		if f.Limit > 0 && len(subs) == f.Limit {
			break
		}
	}
	return subs, nil
}
