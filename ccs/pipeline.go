package ccs

import (
	"context"
	"io"

	"rankd"
)

// Pipeline reads a feed on a goroutine of its own and calls fn, on the caller's goroutine, with each event
// in order, so that parsing one batch of lines overlaps applying the previous one on another core. fn
// gets what Reader.Next returns, with the line; an event's objects are valid until fn returns. Pipeline
// stops at fn's first error, or when ctx is done, and returns the error at once, without waiting for the
// feed (a pipe may send nothing more for long); it returns what the reader skipped, and no error, at the end
// of the feed.
func Pipeline(ctx context.Context, r io.Reader, fn func(ev *rankd.Event, line int, err error) error) (skipped map[string]int, err error) {
	const size = 4096
	free := make(chan *batch, 3)
	full := make(chan *batch, 3)
	for range 3 {
		free <- &batch{
			items: make([]pipeItem, 0, size),
			subs:  make([]rankd.Submission, 0, size),
			judgs: make([]rankd.Judgement, 0, size),
		}
	}
	stop := make(chan struct{})
	defer close(stop)
	rd := NewReader(r)
	// send hands a batch over, unless the consumer stopped.
	send := func(b *batch) bool {
		select {
		case full <- b:
			return true
		case <-stop:
			return false
		}
	}
	go func() {
		defer close(full)
		for {
			var b *batch
			select {
			case b = <-free:
			case <-stop:
				return
			}
			b.items, b.subs, b.judgs = b.items[:0], b.subs[:0], b.judgs[:0]
			for len(b.items) < size {
				ev, err := rd.Next()
				if err == io.EOF {
					send(b)
					return
				}
				// The reader reuses its submission and judgement: the batch keeps copies, in arrays
				// sized so that they never move.
				if ev.Submission != nil {
					b.subs = append(b.subs, *ev.Submission)
					ev.Submission = &b.subs[len(b.subs)-1]
				}
				if ev.Judgement != nil {
					b.judgs = append(b.judgs, *ev.Judgement)
					ev.Judgement = &b.judgs[len(b.judgs)-1]
				}
				b.items = append(b.items, pipeItem{ev: ev, line: rd.Line(), err: err})
			}
			if !send(b) {
				return
			}
		}
	}()
	for {
		var b *batch
		select {
		case next, ok := <-full:
			if !ok {
				return rd.Skipped(), nil // the reader is done with rd
			}
			b = next
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		for i := range b.items {
			it := &b.items[i]
			if err := fn(&it.ev, it.line, it.err); err != nil {
				return nil, err
			}
		}
		free <- b
	}
}

type pipeItem struct {
	ev   rankd.Event
	line int
	err  error
}

type batch struct {
	items []pipeItem
	subs  []rankd.Submission
	judgs []rankd.Judgement
}
