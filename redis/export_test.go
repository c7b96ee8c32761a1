package redis

import (
	"context"
	"testing"

	"rankd"
)

// SetMaxRowsPerCall lowers the rows an update may carry, until the test ends, so that tests can exceed it
// without making huge updates.
func SetMaxRowsPerCall(tb testing.TB, n int) {
	old := maxRowsPerCall
	maxRowsPerCall = n
	tb.Cleanup(func() { maxRowsPerCall = old })
}

// ProjectPipelined applies updates with the script call Project makes, sent in one round trip, for the
// benchmarks to compare with a pipelined reference. The script must be known to Redis: Project it once
// first. Whether each update was applied is not reported.
func (p *Projection) ProjectPipelined(ctx context.Context, us []rankd.ProjectionUpdate) error {
	pipe := p.client.Pipeline()
	for i := range us {
		e, err := newEncoder(&us[i])
		if err != nil {
			return err
		}
		base := p.base(us[i].ContestID)
		args, err := e.projectArgs(base, &us[i])
		if err != nil {
			return err
		}
		projectScript.EvalSha(ctx, pipe, []string{activeKey(base)}, args...)
	}
	_, err := pipe.Exec(ctx)
	return err
}

// Tie returns what starts the member of row r of contest c, which orders rows of equal scores (see
// layout.tie).
func Tie(c rankd.Contest, r rankd.Row) string {
	return layoutOf(&c).tie(&r)
}
