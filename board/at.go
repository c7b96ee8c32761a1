package board

import (
	"time"

	"rankd"
)

// Start returns when the contest started: the state's started time when known, the contest's start
// otherwise. Contest times, and the moments readers ask for, are relative to it.
func (b *Board) Start() time.Time {
	if s := b.state.Started; s != nil {
		return *s
	}
	return b.contest.Start
}

// ApplyAsOf applies ev as it was known at contest time at (see AsOf), start being the contest's start that
// state times are relative to. known is false, and nothing changes, for an event not known yet then.
// Replaying a log through ApplyAsOf, in order, builds the board of that moment: `rankd standings --at` and
// the server's `?at=` both do.
func (b *Board) ApplyAsOf(ev *rankd.Event, at time.Duration, start time.Time) (ch *Change, known bool, err error) {
	e, known := AsOf(*ev, at, start)
	if !known {
		return nil, false, nil
	}
	ch, err = b.Apply(&e)
	return ch, true, err
}
