package engine

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"rankd"
	"rankd/ccs"
)

// At is a moment of a contest that a reader asks for: a contest time, or an absolute time (Abs set) that
// the contest's start resolves.
type At struct {
	Rel time.Duration
	Abs time.Time
}

// ParseAt reads a moment: a contest time ("4:00:00", "3:59:30.500", or a Go duration such as "240m") or
// an RFC 3339 time ("2026-03-01T14:00:00Z"). The error is EINVALID.
func ParseAt(s string) (At, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return At{Abs: t}, nil
	}
	if d, err := ccs.ParseRelTime(s); err == nil {
		return At{Rel: d}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return At{Rel: d}, nil
	}
	hint := ""
	if strings.Contains(s, " ") {
		hint = " (a + in a URL's query is written %2B: a bare + reads as a space)"
	}
	return At{}, rankd.Errorf(rankd.EINVALID, "%q is not a moment: want a contest time such as 4:00:00 or 240m, or an RFC 3339 time%s", s, hint)
}

// ContestTime resolves the moment to a contest time, the contest having started at start.
func (a At) ContestTime(start time.Time) time.Duration {
	if a.Abs.IsZero() {
		return a.Rel
	}
	return a.Abs.Sub(start)
}

// errEnough stops reading the log at the position asked for.
var errEnough = errors.New("enough")

// ReadLog calls fn, in order, with each event of a contest's log after position after and up to position
// upto, and its position: what the board at that position was built from, for building the boards of past
// moments. fn must not keep the event. It reads the store, not the live board, and takes no lock.
func (e *Engine) ReadLog(ctx context.Context, contestID string, after, upto int64, fn func(pos int64, ev *rankd.Event) error) error {
	if upto <= after {
		return nil
	}
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriterSize(pw, 64<<10)
		err := e.store.Replay(ctx, contestID, after, func(le *rankd.LogEntry) error {
			if le.Pos > upto {
				return errEnough
			}
			if _, err := bw.Write(le.Data); err != nil {
				return err
			}
			return bw.WriteByte('\n')
		})
		if err == nil || errors.Is(err, errEnough) {
			err = bw.Flush()
		}
		pw.CloseWithError(err)
	}()
	defer pr.Close()
	pos := after
	_, err := ccs.Pipeline(ctx, pr, func(ev *rankd.Event, _ int, err error) error {
		pos++
		if err != nil {
			// Every line of the log was accepted once: one refused now means the log is damaged.
			return rankd.Errorf(rankd.EINTERNAL, "contest %s: log entry %d: %w", contestID, pos, err)
		}
		return fn(pos, ev)
	})
	return err
}
