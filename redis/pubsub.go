package redis

import (
	"context"
	"strconv"
	"strings"
)

// Subscribe calls fn with the contest and position of every update and rebuild applied to the projection, by
// any server, until ctx is done; then it returns nil. It reconnects when the connection breaks, as go-redis
// does, but what is published meanwhile is lost: a server should also read Position from time to time. fn
// runs on the subscription's goroutine and should return quickly. EUNAVAILABLE when Redis cannot be
// reached at the start.
func (p *Projection) Subscribe(ctx context.Context, fn func(contestID string, pos int64)) error {
	ps := p.client.PSubscribe(ctx, globEscape(p.prefix)+":{*}")
	defer func() { _ = ps.Close() }() // nothing to report on the way out
	if _, err := ps.Receive(ctx); err != nil {
		return fail(ctx, "subscribe", err)
	}
	ch := ps.Channel()
	for {
		select {
		case <-ctx.Done():
			return nil
		case m, ok := <-ch:
			if !ok {
				return nil
			}
			contest, pos, ok := p.parseMessage(m.Channel, m.Payload)
			if ok {
				fn(contest, pos)
			}
		}
	}
}

// parseMessage returns the contest of a channel and the position of a message published on it (see the
// package doc).
func (p *Projection) parseMessage(channel, payload string) (contestID string, pos int64, ok bool) {
	rest, ok := strings.CutPrefix(channel, p.prefix+":{")
	if !ok {
		return "", 0, false
	}
	if contestID, ok = strings.CutSuffix(rest, "}"); !ok {
		return "", 0, false
	}
	head, _, _ := strings.Cut(payload, " ")
	head, _, _ = strings.Cut(head, "\n")
	pos, err := strconv.ParseInt(head, 10, 64)
	return contestID, pos, err == nil
}

// globEscape escapes the characters that PSUBSCRIBE patterns give a meaning.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
