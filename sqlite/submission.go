package sqlite

import (
	"context"
	"strings"
	"time"

	"rankd"
)

// Submissions returns a page of a contest's submissions, ordered by contest time then id (bytewise); see
// rankd.SubmissionStore. Times have the log's precision, milliseconds. An unknown contest has none. A page
// costs its offset: the rows before it are counted off one by one.
func (db *DB) Submissions(ctx context.Context, contestID string, f rankd.SubmissionFilter) ([]rankd.SubmissionRecord, error) {
	if f.Offset < 0 {
		return nil, rankd.Errorf(rankd.EINVALID, "offset %d is negative", f.Offset)
	}
	var q strings.Builder
	q.WriteString(`SELECT id, team_id, problem_id, time_ms, pos FROM submissions WHERE contest_id = ?`)
	args := []any{contestID}
	if f.TeamID != "" {
		q.WriteString(` AND team_id = ?`)
		args = append(args, f.TeamID)
	}
	if f.ProblemID != "" {
		q.WriteString(` AND problem_id = ?`)
		args = append(args, f.ProblemID)
	}
	limit := int64(-1) // SQLite: no limit
	if f.Limit > 0 {
		limit = int64(f.Limit)
	}
	q.WriteString(` ORDER BY time_ms, id LIMIT ? OFFSET ?`)
	args = append(args, limit, f.Offset)

	rows, err := db.read.QueryContext(ctx, q.String(), args...)
	if err != nil {
		return nil, fail(ctx, "submissions", err)
	}
	defer closeRows(rows)
	var subs []rankd.SubmissionRecord
	for rows.Next() {
		var s rankd.SubmissionRecord
		var ms int64
		if err := rows.Scan(&s.ID, &s.TeamID, &s.ProblemID, &ms, &s.Pos); err != nil {
			return nil, fail(ctx, "submissions", err)
		}
		s.Time = time.Duration(ms) * time.Millisecond
		subs = append(subs, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, "submissions", err)
	}
	return subs, nil
}
