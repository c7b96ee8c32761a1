package redis

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"rankd"
)

// maxRowsPerCall bounds the rows and removed teams an update carries: its script call blocks Redis while it
// runs (a few microseconds per row), and its arguments are held in memory at once. Tests lower it.
var maxRowsPerCall = 50000

const (
	// rebuildBatch is the number of rows a rebuild writes per pipelined round trip.
	rebuildBatch = 1000
	// buildTTL is how long the keys of a version being built live if the build is abandoned.
	buildTTL = time.Hour
	// oldVersionTTL is how long a replaced version's keys live on after a rebuild's switch.
	oldVersionTTL = time.Minute
)

// Project applies u if its position is past the projection's, atomically, and reports whether it did (see
// the package doc). ECONFLICT when the contest has no projection (never built, lost by Redis, or gone back
// behind u.After: Redis restarted from an older snapshot, without what was applied since), its rows are
// encoded otherwise (its layout changed) or u is more than one call carries: rebuild it. EINVALID for an update the projection cannot hold
// (see CheckContest and Encode, and the NUL bytes of the package doc). EUNAVAILABLE when Redis is down.
func (p *Projection) Project(ctx context.Context, u rankd.ProjectionUpdate) (bool, error) {
	e, err := newEncoder(&u)
	if err != nil {
		return false, err
	}
	args, err := e.projectArgs(p.base(u.ContestID), &u)
	if err != nil {
		return false, err
	}
	res, err := projectScript.Run(ctx, p.client, []string{activeKey(p.base(u.ContestID))}, args...).Int()
	if err != nil {
		return false, fail(ctx, "project", err)
	}
	switch res {
	case -1:
		return false, lost(u.ContestID)
	case -2:
		return false, rankd.Errorf(rankd.ECONFLICT, "contest %s: its rows are encoded otherwise than the Redis projection's (layout %s): rebuild needed", u.ContestID, e.layout)
	}
	return res == 1, nil
}

// Rebuild replaces a contest's projection with full, which holds every ranked row of both views, each team
// once (Removed is ignored): it writes a new version aside and then switches to it, unless the projection has
// meanwhile moved past full.Pos, in which case the new version is dropped and nothing changes (that is not an
// error) — unless it is at full.Replace, another log's: then it is replaced, and the contest's final standings
// in Redis (another log's too) are dropped. Errors as Project's, but for ECONFLICT; EUNAVAILABLE too when Redis lost part of the new version
// while it was built.
func (p *Projection) Rebuild(ctx context.Context, full rankd.ProjectionUpdate) error {
	e, err := newEncoder(&full)
	if err != nil {
		return err
	}
	base := p.base(full.ContestID)
	version, err := p.client.Incr(ctx, base+":next").Result()
	if err != nil {
		return fail(ctx, "rebuild", err)
	}
	vb := base + ":v" + strconv.FormatInt(version, 10)
	keys := vb + ":keys"
	meta := []any{"pos", full.Pos, "layout", e.layout.String(), "problems", e.problemList}
	var row encodedRow
	for _, v := range full.Views {
		name, err := viewName(v.View)
		if err != nil {
			return err
		}
		meta = append(meta, "seq:"+name, v.Seq)
		vk := vb + ":" + name
		for start := 0; start < len(v.Rows); start += rebuildBatch {
			batch := v.Rows[start:min(start+rebuildBatch, len(v.Rows))]
			scored := make([]goredis.Z, 0, len(batch))
			rows := make([]any, 0, 2*len(batch))
			members := make([]any, 0, 2*len(batch))
			groups := map[string][]goredis.Z{}
			for i := range batch {
				if err := e.encode(&row, &batch[i]); err != nil {
					return err
				}
				z := goredis.Z{Score: row.score, Member: row.member}
				scored = append(scored, z)
				rows = append(rows, batch[i].TeamID, row.row)
				members = append(members, batch[i].TeamID, row.member)
				for _, g := range row.groupIDs {
					groups[g] = append(groups[g], z)
				}
			}
			pipe := p.client.Pipeline()
			pipe.ZAdd(ctx, vk, scored...)
			pipe.HSet(ctx, vk+":rows", rows...)
			pipe.HSet(ctx, vk+":members", members...)
			written := []string{vk, vk + ":rows", vk + ":members"}
			for g, zs := range groups {
				pipe.ZAdd(ctx, vk+":g:"+g, zs...)
				written = append(written, vk+":g:"+g)
			}
			for _, k := range written {
				pipe.Expire(ctx, k, buildTTL)
				pipe.SAdd(ctx, keys, k)
			}
			pipe.Expire(ctx, keys, buildTTL)
			if _, err := pipe.Exec(ctx); err != nil {
				return fail(ctx, "rebuild", err)
			}
		}
	}
	pipe := p.client.Pipeline()
	pipe.HSet(ctx, vb+":meta", meta...)
	pipe.Expire(ctx, vb+":meta", buildTTL)
	pipe.SAdd(ctx, keys, vb+":meta")
	pipe.Expire(ctx, keys, buildTTL)
	if _, err := pipe.Exec(ctx); err != nil {
		return fail(ctx, "rebuild", err)
	}
	args := []any{base, version, int64(oldVersionTTL / time.Second), e.message(&full, false), full.Replace}
	for _, v := range full.Views {
		name, _ := viewName(v.View) // checked above
		args = append(args, name, len(v.Rows))
	}
	res, err := switchScript.Run(ctx, p.client, []string{activeKey(base)}, args...).Int()
	if err != nil {
		return fail(ctx, "rebuild", err)
	}
	if res < 0 {
		return rankd.Errorf(rankd.EUNAVAILABLE, "contest %s: the new version of the Redis projection lost keys while it was built (Redis flushed, restarted or failed over, or the build took longer than %v): rebuild again", full.ContestID, buildTTL)
	}
	return nil
}

// encoder turns the rows of an update into the strings the scripts store.
type encoder struct {
	layout      layout
	problemList string // the problem ids, NUL-joined, as the meta hash holds them
	buf         []byte
}

// encodedRow is a row as the scripts store it.
type encodedRow struct {
	// member is the row's member: the layout's tie (see layout.tie) and name, NUL, team id, NUL, and its
	// groups, NUL-joined.
	member string
	// groupIDs holds the row's groups, sorted and without repeats.
	groupIDs []string
	score    float64
	// scoreText is score as the scripts pass it to ZADD: exact, the shortest that reads back the same.
	scoreText string
	// row is the row's r field (see the package doc).
	row string
}

// newEncoder validates the contest and problems of u, and returns an encoder of its rows.
func newEncoder(u *rankd.ProjectionUpdate) (*encoder, error) {
	if err := checkContestID(u.ContestID); err != nil {
		return nil, err
	}
	if err := CheckContest(u.Contest, u.Problems); err != nil {
		return nil, err
	}
	ids := make([]string, len(u.Problems))
	for i, pr := range u.Problems {
		if pr.ID == "" {
			return nil, rankd.Errorf(rankd.EINVALID, "contest %s: a problem has no id", u.ContestID)
		}
		if err := checkText("problem id", pr.ID); err != nil {
			return nil, err
		}
		ids[i] = pr.ID
	}
	return &encoder{layout: layoutOf(&u.Contest), problemList: strings.Join(ids, "\x00")}, nil
}

// encode fills out with row r, refusing what the projection cannot keep.
func (e *encoder) encode(out *encodedRow, r *rankd.ProjectedRow) error {
	if r.TeamID == "" {
		return rankd.Errorf(rankd.EINVALID, "a projected row has no team id")
	}
	if err := checkText("team id", r.TeamID); err != nil {
		return err
	}
	if err := checkText("team name", r.Name); err != nil {
		return err
	}
	for _, g := range r.Groups {
		if g == "" {
			return rankd.Errorf(rankd.EINVALID, "team %s: a group has no id", r.TeamID)
		}
		if err := checkText("group id", g); err != nil {
			return err
		}
	}
	score, err := e.layout.encode(&r.Row)
	if err != nil {
		return err
	}
	out.score = score
	out.scoreText = strconv.FormatFloat(score, 'g', -1, 64)
	// Sorted, so that the member changes only when the groups do.
	out.groupIDs = append(out.groupIDs[:0], r.Groups...)
	if !slices.IsSorted(out.groupIDs) {
		slices.Sort(out.groupIDs)
	}
	out.groupIDs = slices.Compact(out.groupIDs)
	out.member = e.layout.tie(&r.Row) + r.Name + "\x00" + r.TeamID + "\x00" + strings.Join(out.groupIDs, "\x00")

	b := e.buf[:0]
	b = strconv.AppendInt(b, int64(r.Solved), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, r.Penalty, 10)
	b = append(b, ',')
	b = strconv.AppendFloat(b, r.Score, 'g', -1, 64)
	b = append(b, ',')
	b = strconv.AppendInt(b, r.Time.Milliseconds(), 10)
	for i := range r.Cells {
		c := &r.Cells[i]
		if err := checkText("problem id", c.ProblemID); err != nil {
			return err
		}
		var flags int64
		if c.Solved {
			flags |= 1
		}
		if c.FirstToSolve {
			flags |= 2
		}
		b = append(b, 0)
		b = strconv.AppendInt(b, flags, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(c.Judged), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(c.Pending), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, c.Time.Milliseconds(), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, c.Penalty, 10)
		b = append(b, ',')
		b = strconv.AppendFloat(b, c.Score, 'g', -1, 64)
		b = append(b, ',')
		b = append(b, c.ProblemID...)
	}
	out.row = string(b)
	e.buf = b
	return nil
}

// projectArgs returns the arguments of the script call that applies u (see project.lua). ECONFLICT for an
// update of more than maxRowsPerCall rows and removed teams: applied in several calls, readers would see part
// of it in between, so it is rebuilt instead (a rebuild writes aside and switches at once).
func (e *encoder) projectArgs(base string, u *rankd.ProjectionUpdate) ([]any, error) {
	n := 0
	for _, v := range u.Views {
		n += len(v.Rows) + len(v.Removed)
	}
	if n > maxRowsPerCall {
		return nil, rankd.Errorf(rankd.ECONFLICT, "contest %s: an update of %d rows is more than one atomic call carries (%d): rebuild needed", u.ContestID, n, maxRowsPerCall)
	}
	args := []any{base, u.Pos, u.After, e.layout.String(), e.problemList, e.message(u, true), len(u.Views)}
	for _, v := range u.Views {
		name, err := viewName(v.View)
		if err != nil {
			return nil, err
		}
		args = append(args, name, v.Seq)
	}
	args = append(args, len(u.Views))
	for _, v := range u.Views {
		name, _ := viewName(v.View) // checked above
		var err error
		if args, err = e.appendSegment(args, name, v.Rows, v.Removed); err != nil {
			return nil, err
		}
	}
	return args, nil
}

// appendSegment appends to args a segment of a script call (see project.lua) that applies rows and removed to
// a view.
func (e *encoder) appendSegment(args []any, view string, rows []rankd.ProjectedRow, removed []string) ([]any, error) {
	encoded := make([]encodedRow, len(rows))
	var (
		groups  []string       // in order of appearance
		index   map[string]int // group → its place in groups
		inGroup [][]int        // per group, the rows in it
	)
	for i := range rows {
		r := &encoded[i]
		if err := e.encode(r, &rows[i]); err != nil {
			return nil, err
		}
		for _, g := range r.groupIDs {
			j, ok := index[g]
			if !ok {
				if index == nil {
					index = map[string]int{}
				}
				j = len(groups)
				index[g] = j
				groups = append(groups, g)
				inGroup = append(inGroup, nil)
			}
			inGroup[j] = append(inGroup[j], i)
		}
	}
	args = append(args, view, len(rows), len(groups), len(removed))
	for i := range encoded {
		args = append(args, encoded[i].scoreText, encoded[i].member)
	}
	for i := range encoded {
		args = append(args, rows[i].TeamID, encoded[i].row)
	}
	for j, g := range groups {
		args = append(args, g, len(inGroup[j]))
		for _, i := range inGroup[j] {
			args = append(args, encoded[i].scoreText, encoded[i].member)
		}
	}
	for _, t := range removed {
		if err := checkText("team id", t); err != nil {
			return nil, err
		}
		args = append(args, t)
	}
	return args, nil
}

// message returns what is published when u is applied (see the package doc): its position, its views' seqs
// and, for an update, the teams whose rows changed.
func (e *encoder) message(u *rankd.ProjectionUpdate, teams bool) string {
	b := strconv.AppendInt(nil, u.Pos, 10)
	var ids []string
	for _, v := range u.Views {
		name, _ := viewName(v.View) // the caller checked the views
		b = append(b, ' ')
		b = append(b, name...)
		b = append(b, ':')
		b = strconv.AppendUint(b, v.Seq, 10)
		if teams {
			for i := range v.Rows {
				ids = append(ids, v.Rows[i].TeamID)
			}
			ids = append(ids, v.Removed...)
		}
	}
	if teams {
		slices.Sort(ids)
		b = append(b, '\n')
		b = append(b, strings.Join(slices.Compact(ids), "\x00")...)
	}
	return string(b)
}
