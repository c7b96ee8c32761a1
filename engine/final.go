package engine

import (
	"context"
	"time"

	"rankd"
	"rankd/board"
)

// End returns when a contest ends: its start and duration as its board has them. A contest without a start
// time has no end yet: EINVALID.
func (e *Engine) End(contestID string) (time.Time, error) {
	var end time.Time
	err := e.Read(contestID, func(b *board.Board, _ int64) error {
		c := b.Contest()
		if c.Start.IsZero() {
			return rankd.Errorf(rankd.EINVALID, "contest %q has no start time, so no end", contestID)
		}
		end = c.Start.Add(c.Duration)
		return nil
	})
	return end, err
}

// Final returns a contest's final standings: its boards at the log's end (in shared mode, after applying
// what the other servers stored), every row of the jury and public views and the public awards.
func (e *Engine) Final(ctx context.Context, contestID string) (rankd.FinalStandings, error) {
	if e.Shared {
		if err := e.SyncContest(ctx, contestID); err != nil {
			return rankd.FinalStandings{}, err
		}
	}
	f := rankd.FinalStandings{ContestID: contestID}
	err := e.Read(contestID, func(b *board.Board, pos int64) error {
		jury, err := b.Standings(rankd.JuryView, 0, -1)
		if err != nil {
			return err
		}
		public, err := b.Standings(rankd.PublicView, 0, -1)
		if err != nil {
			return err
		}
		f.Pos, f.Jury, f.Public = pos, jury.Rows, public.Rows
		f.Awards, f.JuryAwards = b.Awards(rankd.PublicView), b.Awards(rankd.JuryView)
		return nil
	})
	return f, err
}
