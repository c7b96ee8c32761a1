package postgres

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"rankd"
)

// Submissions returns a page of a contest's submissions, ordered by contest time then id (bytewise); see
// rankd.SubmissionStore. Times have the log's precision, milliseconds. An unknown contest has none. Each
// filter has an index in list order, so that a page costs its offset and its length.
func (db *DB) Submissions(ctx context.Context, contestID string, f rankd.SubmissionFilter) ([]rankd.SubmissionRecord, error) {
	if f.Offset < 0 {
		return nil, rankd.Errorf(rankd.EINVALID, "offset %d is negative", f.Offset)
	}
	if !rankd.ValidText(contestID) || !rankd.ValidText(f.TeamID) || !rankd.ValidText(f.ProblemID) {
		return nil, ctx.Err() // no such contest, team or problem
	}
	// One statement per combination of filters, rather than one with "$2 = '' OR ...", so that each is
	// planned for its index.
	var q strings.Builder
	q.WriteString(`SELECT id, team_id, problem_id, time_ms, pos FROM submissions
		WHERE contest = (SELECT key FROM contests WHERE id = $1)`)
	args := []any{contestID}
	if f.TeamID != "" {
		args = append(args, f.TeamID)
		q.WriteString(` AND team_id = $` + strconv.Itoa(len(args)))
	}
	if f.ProblemID != "" {
		args = append(args, f.ProblemID)
		q.WriteString(` AND problem_id = $` + strconv.Itoa(len(args)))
	}
	q.WriteString(` ORDER BY time_ms, id`)
	if f.Offset > 0 {
		args = append(args, f.Offset)
		q.WriteString(` OFFSET $` + strconv.Itoa(len(args)))
	}
	if f.Limit > 0 {
		args = append(args, f.Limit)
		q.WriteString(` LIMIT $` + strconv.Itoa(len(args)))
	}
	rows, err := db.pool.Query(ctx, q.String(), args...)
	if err != nil {
		return nil, fail(ctx, "submissions", err)
	}
	subs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (rankd.SubmissionRecord, error) {
		var s rankd.SubmissionRecord
		var ms int64
		err := row.Scan(&s.ID, &s.TeamID, &s.ProblemID, &ms, &s.Pos)
		s.Time = time.Duration(ms) * time.Millisecond
		return s, err
	})
	if err != nil {
		return nil, fail(ctx, "submissions", err)
	}
	return subs, nil
}
