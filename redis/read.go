package redis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"rankd"
)

// Position returns the log position of a contest's projection; 0 when it has none (never built, lost by
// Redis: see the package doc, or laid out by a rankd of another layout version, which must be rebuilt). EUNAVAILABLE when Redis is down.
func (p *Projection) Position(ctx context.Context, contestID string) (int64, error) {
	if err := checkContestID(contestID); err != nil {
		return 0, err
	}
	base := p.base(contestID)
	pos, err := positionScript.RunRO(ctx, p.client, []string{activeKey(base)}, base, layoutVersion).Int64()
	if err != nil {
		return 0, fail(ctx, "position", err)
	}
	return pos, nil
}

// Standings reads a page of the jury or public view of a contest (of one of its groups when q.GroupID is
// set, ranked from 1 within the group; an unknown group has no rows), with the view's seq, all from one
// version of the projection. A negative limit reads to the end. ENOTFOUND when the contest has no projection (or
// one of another layout version, which this rankd would misread); EINVALID for a team view or a negative offset; EUNAVAILABLE when Redis is down.
func (p *Projection) Standings(ctx context.Context, q rankd.ProjectionQuery) (rankd.Standings, error) {
	if err := checkContestID(q.ContestID); err != nil {
		return rankd.Standings{}, err
	}
	view, err := viewName(q.View)
	if err != nil {
		return rankd.Standings{}, err
	}
	if q.Offset < 0 {
		return rankd.Standings{}, rankd.Errorf(rankd.EINVALID, "offset must not be negative")
	}
	if err := checkText("group id", q.GroupID); err != nil {
		return rankd.Standings{}, err
	}
	base := p.base(q.ContestID)
	res, err := standingsScript.RunRO(ctx, p.client, []string{activeKey(base)}, base, view, q.GroupID, q.Offset, q.Limit, layoutVersion).Slice()
	if errors.Is(err, goredis.Nil) {
		return rankd.Standings{}, rankd.Errorf(rankd.ENOTFOUND, "contest %s has no projection in Redis (of this rankd's layout)", q.ContestID)
	}
	if err != nil {
		return rankd.Standings{}, fail(ctx, "standings", err)
	}
	st, err := decodePage(res)
	if err != nil {
		return rankd.Standings{}, fmt.Errorf("redis: standings of contest %s: %w", q.ContestID, err)
	}
	st.ContestID, st.View, st.Offset = q.ContestID, q.View, q.Offset
	return st, nil
}

// decodePage decodes the reply of standings.lua.
func decodePage(res []any) (rankd.Standings, error) {
	var st rankd.Standings
	if len(res) != 7 {
		return st, fmt.Errorf("a reply of %d parts, want 7", len(res))
	}
	seq, err := strconv.ParseUint(str(res[1]), 10, 64)
	if err != nil {
		return st, fmt.Errorf("seq: %w", err)
	}
	var problems []string
	if s := str(res[2]); s != "" {
		problems = strings.Split(s, "\x00")
	}
	total, _ := res[3].(int64)
	ranks, _ := res[4].([]any)
	members, _ := res[5].([]any)
	rows, _ := res[6].([]any)
	if len(rows) != len(members) || len(ranks) != len(members) {
		return st, fmt.Errorf("%d rows and %d ranks for %d members", len(rows), len(ranks), len(members))
	}
	st.Seq, st.Total = seq, int(total)
	st.Rows = make([]rankd.Row, len(rows))
	for i := range rows {
		member := str(members[i])
		_, rest, _ := strings.Cut(member, "\x00")
		team, _, ok := strings.Cut(rest, "\x00")
		if !ok {
			return st, fmt.Errorf("member %q has no team id", member)
		}
		if rows[i] == nil {
			return st, fmt.Errorf("team %s: its row is missing", team)
		}
		r, err := decodeRow(team, str(rows[i]), problems)
		if err != nil {
			return st, fmt.Errorf("team %s: %w", team, err)
		}
		rank, _ := ranks[i].(int64)
		r.Rank = int(rank)
		st.Rows[i] = r
	}
	return st, nil
}

// decodeRow decodes a row as the rows hash holds it (see the package doc), with its cells in the order of
// problems: the cell of a problem added since the row was written is empty.
func decodeRow(team, row string, problems []string) (rankd.Row, error) {
	r := rankd.Row{TeamID: team}
	agg, cells, _ := strings.Cut(row, "\x00")
	var a [4]string
	if !split(agg, a[:]) {
		return r, fmt.Errorf("aggregate %q: want 4 numbers", agg)
	}
	var n numbers
	r.Solved = int(n.int(a[0]))
	r.Penalty = n.int(a[1])
	r.Score = n.float(a[2])
	r.Time = time.Duration(n.int(a[3])) * time.Millisecond
	if n.err != nil {
		return r, fmt.Errorf("aggregate %q: %w", agg, n.err)
	}
	r.Cells = make([]rankd.Cell, len(problems))
	for i, id := range problems {
		r.Cells[i].ProblemID = id
	}
	for i := 0; cells != ""; i++ {
		var cell string
		cell, cells, _ = strings.Cut(cells, "\x00")
		var v [7]string // the numbers, then the problem id, which may hold commas
		if !cut(cell, v[:]) {
			return r, fmt.Errorf("cell %q: want 6 numbers and a problem id", cell)
		}
		j := i
		if j >= len(problems) || problems[j] != v[6] {
			if j = slices.Index(problems, v[6]); j < 0 {
				continue // a problem deleted since the row was written
			}
		}
		c := &r.Cells[j]
		flags := n.int(v[0])
		c.Solved, c.FirstToSolve = flags&1 != 0, flags&2 != 0
		c.Judged = int(n.int(v[1]))
		c.Pending = int(n.int(v[2]))
		c.Time = time.Duration(n.int(v[3])) * time.Millisecond
		c.Penalty = n.int(v[4])
		c.Score = n.float(v[5])
		if n.err != nil {
			return r, fmt.Errorf("cell %q: %w", cell, n.err)
		}
	}
	return r, nil
}

// cut cuts s at its first len(out)-1 commas into out.
func cut(s string, out []string) bool {
	for i := range out[:len(out)-1] {
		var ok bool
		if out[i], s, ok = strings.Cut(s, ","); !ok {
			return false
		}
	}
	out[len(out)-1] = s
	return true
}

// split splits s at commas into exactly len(out) parts.
func split(s string, out []string) bool {
	return cut(s, out) && !strings.Contains(out[len(out)-1], ",")
}

// numbers parses the numbers of a compact field, keeping the first error.
type numbers struct{ err error }

func (n *numbers) int(s string) int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if n.err == nil {
		n.err = err
	}
	return v
}

func (n *numbers) float(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if n.err == nil {
		n.err = err
	}
	return v
}

// str returns a reply element as a string: "" for nil.
func str(v any) string {
	s, _ := v.(string)
	return s
}
