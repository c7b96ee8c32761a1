package engine

import (
	"context"
	"log/slog"
	"time"

	"rankd"
	"rankd/board"
)

// End returns when a contest ends: its start and duration as its board has them. A contest without a start
// time has no end yet: EINVALID.
func (e *Engine) End(contestID string) (time.Time, error) {
	var end time.Time
	err := e.Read(contestID, func(b *board.Board, _ int64) error {
		if b.Start().IsZero() {
			return rankd.Errorf(rankd.EINVALID, "contest %q has no start time, so no end", contestID)
		}
		end = b.Start().Add(b.Contest().Duration)
		return nil
	})
	return end, err
}

// Fed reports whether a contest's whole log was stored after the contest's end (an import of a past contest, a
// follow catching up), and whether its state says it ended. Such a log says its end itself, when its feed
// comes to it: the server records none over it, however long the feed pauses (an import interrupted and
// resumed later), and finalizes it once its state says it ended (see finalize.Settled). A contest without a
// start time: EINVALID, as End.
func (e *Engine) Fed(ctx context.Context, contestID string) (fed, ended bool, err error) {
	var end time.Time
	err = e.Read(contestID, func(b *board.Board, _ int64) error {
		if b.Start().IsZero() {
			return rankd.Errorf(rankd.EINVALID, "contest %q has no start time, so no end", contestID)
		}
		end, ended = b.Start().Add(b.Contest().Duration), b.State().Ended != nil
		return nil
	})
	if err != nil {
		return false, false, err
	}
	e.mu.RLock()
	c, ok := e.contests[contestID]
	e.mu.RUnlock()
	if !ok {
		return false, false, e.unknown(contestID)
	}
	// When the log began never changes: read once.
	began := c.began.Load()
	if began == 0 {
		at, err := e.store.Began(ctx, contestID)
		if err != nil || at.IsZero() {
			return false, ended, err
		}
		began = at.UnixNano()
		c.began.Store(began)
	}
	return !time.Unix(0, began).Before(end), ended, nil
}

// RecordEnd stores the end of a contest whose time is up at now but whose state does not say it ended yet.
// The board reads no clock: until its log says so, a contest has not ended for it, and an OI contest hidden
// from the public until its end stays hidden. It does nothing before the end, for a contest without a start
// time, or for one whose state says it ended.
func (e *Engine) RecordEnd(ctx context.Context, contestID string, now time.Time) error {
	var st *rankd.State
	due := func() (bool, error) {
		var ok bool
		err := e.Read(contestID, func(b *board.Board, _ int64) error {
			st, ok = EndState(b, now)
			return nil
		})
		return err == nil && ok, err
	}
	ok, err := due()
	if !ok || err != nil {
		return err
	}
	if e.Shared {
		// Another server may have recorded it: the log is looked at only when this board says the end is due,
		// not at every call (the scheduler asks every few seconds for every contest).
		if err := e.SyncContest(ctx, contestID); err != nil {
			return err
		}
		if ok, err = due(); !ok || err != nil {
			return err
		}
	}
	end := *st.Ended
	entry, err := Entry(rankd.Event{Type: rankd.EventState, State: st})
	if err != nil {
		return err
	}
	entry.Own = true // an end recorded again after a reopening may repeat an earlier state
	res, err := e.Submit(ctx, contestID, []rankd.LogEntry{entry})
	if err == nil && res[0].Status == StatusRejected {
		err = &rankd.Error{Code: res[0].Code, Message: res[0].Message}
	}
	if err == nil && res[0].Status == StatusAccepted {
		e.Logger.Info("contest ended: its end recorded", slog.String("contest", contestID), slog.Time("end", end))
	}
	return err
}

// EndState returns the state that records board b's contest as ended (and started, when its state does not
// say so either), if its time is up at now and its state does not say it ended: what RecordEnd stores, and
// what rankd standings takes of a feed that says nothing of the end of a contest whose time is up.
func EndState(b *board.Board, now time.Time) (*rankd.State, bool) {
	c := b.Contest()
	st, start := b.State().WithFreeze(&c), b.Start()
	end := start.Add(c.Duration)
	if st.Ended != nil || start.IsZero() || now.Before(end) {
		return nil, false
	}
	if st.Started == nil {
		st.Started = &start
	}
	st.Ended = &end
	return &st, true
}

// Final returns a contest's final standings: its boards at the log's end (in shared mode, after applying
// what the other servers stored), every row of the jury and public views and the public awards. A contest
// whose time is up is recorded as ended first (see RecordEnd).
func (e *Engine) Final(ctx context.Context, contestID string) (rankd.FinalStandings, error) {
	if e.Shared {
		if err := e.SyncContest(ctx, contestID); err != nil {
			return rankd.FinalStandings{}, err
		}
	}
	if err := e.RecordEnd(ctx, contestID, e.Now()); err != nil {
		return rankd.FinalStandings{}, err
	}
	f := rankd.FinalStandings{ContestID: contestID}
	e.mu.RLock()
	held := e.contests[contestID]
	e.mu.RUnlock()
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
	if err != nil {
		return rankd.FinalStandings{}, err
	}
	// The log's entry at the board's position names the log (see FinalStandings.Stored); the board is still
	// this server's contest when the entry is read, so that the entry is of the log the board was built from,
	// not of a contest created again under the id.
	le, ok, err := e.entryAt(ctx, contestID, f.Pos)
	if err != nil {
		return rankd.FinalStandings{}, err
	}
	e.mu.RLock()
	same := held != nil && e.contests[contestID] == held
	e.mu.RUnlock()
	if !ok || !same {
		return rankd.FinalStandings{}, rankd.FinalOfAnotherLog(f)
	}
	f.Stored = le.Stored
	return f, nil
}
