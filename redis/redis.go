// Package redis is rankd's live projection over Redis 7, for the distributed mode: the jury and public boards
// of every contest, which many stateless rankd nodes write from their own boards and read pages of, and a
// pub/sub channel that tells them when a contest moved. It implements rankd.Projection through go-redis.
//
// # Keys
//
// Every key of a contest starts with its base name <prefix>:{<contest id>}, e.g. rankd:{wf2025} (the prefix is
// "rankd" unless WithPrefix says otherwise): the braces are a Redis Cluster hash tag, so that one script may
// touch every key of a contest. A projection is versioned: <base>:active holds the number N of the version
// that readers and writers use, and everything else lives under <base>:v<N>, so that a rebuild writes a
// version aside and switches to it at once.
//
//	<base>:active                 N, the active version
//	<base>:next                   the last version number handed out
//	<base>:v<N>:meta              hash: pos, seq:jury, seq:public, layout (see Encode), problems (ids, NUL-joined)
//	<base>:v<N>:keys              set of the keys of version N, to expire the version as a whole
//	<base>:v<N>:<view>            sorted set of the ranked rows of a view (jury or public)
//	<base>:v<N>:<view>:g:<group>  sorted set of the ranked rows of one group of the view
//	<base>:v<N>:<view>:members    hash: team id → the team's member in the sorted sets
//	<base>:v<N>:<view>:rows       hash: team id → the team's row, "solved,penalty,score,time_ms" then, per cell,
//	                              a NUL and "flags,judged,pending,time_ms,penalty,score,problem id" (flags: 1
//	                              solved, 2 first to solve)
//
// A row's member is the team's shown name (rankd.Team.ShownName: the board lists equal rows by it), its id and
// its groups (sorted), NUL-separated, and its score is Encode's
// (whose doc gives the bit layouts), lower being better: ZRANGE lists a board in order, equal scores by
// (name, id) bytewise, as the board does, and the rank a row shares is one more than the number of rows with a
// smaller score (ZCOUNT). OI and IOI ordered by score then time keep the score exact, as the board does, and
// start the member with the time the score was reached, in 16 hex digits (layout "exact:time/2"): equal scores
// are then listed by time, then name, and a row's rank also counts the rows of its score and an earlier time,
// found by bisection. Team, group and problem ids and names must therefore hold no NUL byte, and contest ids
// no NUL, '{' or '}': others are refused with EINVALID.
//
// The layout keeps the work of an update to a few commands whatever its size: one ZADD to the view, one per
// group, one HSET of the rows. As the groups are part of the member, a team renamed or regrouped gets a new
// member, which ZADD reports by its count of members added: only then does the script read the teams' old
// members, to remove them from their sets. A row is one field rather than one per problem because updates
// carry whole rows: thirteen fields a row (12 problems) cost Redis about twice the CPU (arguments, Lua strings,
// hash entries) for nothing. Cells carry their problem's id, so that rows written before the problems
// changed still read right.
//
// # Writes
//
// Project applies an update in one Lua script call, atomically: the script resolves the active version, skips
// an update whose position is not past the projection's, places the rows, moves the members of teams renamed
// or regrouped, writes the rows, removes the teams no longer ranked, sets the views' seqs and the position,
// and publishes. Everything is encoded in Go beforehand: the script moves strings and decodes nothing. An
// update of more than 50,000 rows (a rejudge of everything, a CTF value change on a huge board) would block
// Redis too long in one call and would be seen half-applied in several: Project refuses it with ECONFLICT,
// and the sender rebuilds instead.
//
// Rebuild writes every row into a new version with pipelined batches, the keys expiring in an hour until the
// switch (so that an abandoned build leaves nothing behind), then switches in one script: the pointer moves to
// the new version unless the active one is at a later position, in which case the new one is dropped (but
// for an active one at the position the caller names as another log's, rankd.ProjectionUpdate.Replace); the
// old version's keys expire a minute later. The script counts the rows of the new version first: a build that
// Redis lost part of while it ran (a flush, a restart, a failover) is dropped, and Rebuild answers
// EUNAVAILABLE, rather than switching to the part written since. Readers read a page, its total and its seq in one read-only script
// from the version the pointer names, so they never see an empty or partial board.
//
// # Messages
//
// Each applied update and rebuild is published on the channel <base>, as text: a first line
// "<pos> <view>:<seq> ..." (the update's views), then, for an update, a newline and the ids of the teams
// whose rows changed, separated by NUL bytes. A rebuild's message has the first line only: any row may have
// changed. Subscribe delivers the positions; pub/sub loses what is published while a subscriber reconnects,
// so a server should also read Position from time to time.
//
// # Loss
//
// When Redis loses the data (a restart without persistence, a flush, an eviction of the pointer), Project
// answers ECONFLICT until someone calls Rebuild, and Position answers 0: a server that once projected a
// contest and finds its position at 0, or is refused with ECONFLICT, rebuilds it from its board. A changed
// layout (the rules or the ties by time changed, or the duration of a contest whose ties go by time) also
// answers ECONFLICT, and is cured the same way.
package redis

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"rankd"
)

// The projection implements rankd.Projection.
var _ rankd.Projection = (*Projection)(nil)

// Projection is the Redis projection of every contest of a server group. Its methods are safe for concurrent
// use.
type Projection struct {
	client *goredis.Client
	prefix string
}

// Option configures Open.
type Option func(*Projection)

// WithPrefix sets the prefix of every key and channel name ("rankd" by default), so that several rankd
// installations, or tests, share a Redis without seeing each other.
func WithPrefix(prefix string) Option {
	return func(p *Projection) { p.prefix = prefix }
}

var (
	//go:embed project.lua
	projectLua string
	//go:embed switch.lua
	switchLua string
	//go:embed standings.lua
	standingsLua string
	//go:embed position.lua
	positionLua string

	projectScript   = goredis.NewScript(projectLua)
	switchScript    = goredis.NewScript(switchLua)
	standingsScript = goredis.NewScript(standingsLua)
	positionScript  = goredis.NewScript(positionLua)
)

// LogTo makes go-redis log through l (it has one logger for the process): by default it writes plain
// lines to stderr, among a server's JSON records.
func LogTo(l *slog.Logger) { goredis.SetLogger(clientLogger{l}) }

// clientLogger is go-redis's logger over slog.
type clientLogger struct{ l *slog.Logger }

func (c clientLogger) Printf(ctx context.Context, format string, v ...any) {
	c.l.WarnContext(ctx, "redis client", slog.String("message", strings.TrimPrefix(fmt.Sprintf(format, v...), "redis: ")))
}

// Open connects to the Redis at url, as go-redis's ParseURL takes it (redis://[:password@]host:port/db, or
// rediss:// for TLS; pool settings such as pool_size go in its query). A server that cannot be reached:
// EUNAVAILABLE; a malformed url or prefix: EINVALID.
func Open(ctx context.Context, url string, opts ...Option) (*Projection, error) {
	if url == "" {
		return nil, rankd.Errorf(rankd.EINVALID, "no Redis URL given")
	}
	o, err := goredis.ParseURL(url)
	if err != nil {
		// The parser's message may repeat the URL, password included: it stays in the cause.
		return nil, &rankd.Error{Code: rankd.EINVALID, Message: "invalid Redis URL", Err: err}
	}
	p := &Projection{prefix: "rankd"}
	for _, opt := range opts {
		opt(p)
	}
	if p.prefix == "" || strings.ContainsAny(p.prefix, "{}\x00") {
		return nil, rankd.Errorf(rankd.EINVALID, "Redis key prefix %q must be non-empty, without '{', '}' or NUL", p.prefix)
	}
	// Reads are bounded by their caller's deadline (a page waits 100 ms for Redis, then reads the board):
	// without this, go-redis waits for its own timeouts whatever the context says.
	o.ContextTimeoutEnabled = true
	p.client = goredis.NewClient(o)
	if err := p.client.Ping(ctx).Err(); err != nil {
		_ = p.client.Close() // nothing was sent that a close could lose
		return nil, fail(ctx, "open", err)
	}
	return p, nil
}

// Close closes the connections. Later calls fail.
func (p *Projection) Close() error {
	return p.client.Close()
}

// base returns the base name of a contest's keys and its channel.
func (p *Projection) base(contestID string) string {
	return p.prefix + ":{" + contestID + "}"
}

// activeKey returns the key of the pointer to a contest's active version.
func activeKey(base string) string { return base + ":active" }

// checkContestID refuses a contest id that cannot name keys.
func checkContestID(id string) error {
	if id == "" {
		return rankd.Errorf(rankd.EINVALID, "contest id is required")
	}
	if strings.ContainsAny(id, "{}\x00") {
		return rankd.Errorf(rankd.EINVALID, "contest id %q holds '{', '}' or NUL: the Redis projection cannot name its keys", id)
	}
	return nil
}

// checkText refuses a string holding NUL, the separator of members and lists.
func checkText(what, s string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return rankd.Errorf(rankd.EINVALID, "%s %q holds a NUL byte, which the Redis projection cannot keep", what, s)
	}
	return nil
}

// viewName returns the name of a projected view in keys.
func viewName(v rankd.View) (string, error) {
	switch v.Kind {
	case rankd.ViewJury:
		return "jury", nil
	case rankd.ViewPublic:
		return "public", nil
	}
	return "", rankd.Errorf(rankd.EINVALID, "the Redis projection holds the jury and public views, not %s", v)
}

// lost is the answer to a write of a contest whose projection is missing.
func lost(contestID string) error {
	return rankd.Errorf(rankd.ECONFLICT, "the Redis projection of contest %s is missing (never built, or lost by Redis): rebuild needed", contestID)
}

// fail wraps err, the failure of operation op, for the caller. When ctx is done, its error is the cause, so
// that callers can check it with errors.Is. A server that cannot be reached or cannot serve now gives an
// *rankd.Error with code EUNAVAILABLE; any other failure is internal. The driver's message stays in the cause,
// never in the *rankd.Error's message.
func fail(ctx context.Context, op string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("redis: %s: %w", op, cerr)
	}
	err = fmt.Errorf("redis: %s: %w", op, err)
	if unavailable(err) {
		return &rankd.Error{Code: rankd.EUNAVAILABLE, Message: "Redis is unavailable", Err: err}
	}
	return err
}

// unavailable reports whether err says Redis cannot be reached or cannot serve now, rather than that the
// request was wrong: what a retry later may cure.
func unavailable(err error) bool {
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, goredis.ErrClosed) || errors.Is(err, goredis.ErrPoolTimeout) || errors.Is(err, goredis.ErrPoolExhausted) {
		return true
	}
	if goredis.IsLoadingError(err) || goredis.IsReadOnlyError(err) || goredis.IsMasterDownError(err) ||
		goredis.IsClusterDownError(err) || goredis.IsTryAgainError(err) || goredis.IsMaxClientsError(err) {
		return true
	}
	// BUSY: another script runs too long; OOM: memory is full until keys expire or are evicted.
	return goredis.HasErrorPrefix(err, "BUSY") || goredis.HasErrorPrefix(err, "OOM")
}

// DeleteContest removes every key of a contest (its projection, its final standings) and publishes a notice
// at position 0 on its channel: the other servers then look for the contests of the log again, and forget
// the deleted one at once rather than at their next periodic look.
func (p *Projection) DeleteContest(ctx context.Context, contestID string) error {
	if err := checkContestID(contestID); err != nil {
		return err
	}
	base := p.base(contestID)
	iter := p.client.Scan(ctx, 0, globEscape(base)+":*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return fail(ctx, "delete contest", err)
	}
	for chunk := range slices.Chunk(keys, 1000) {
		if err := p.client.Del(ctx, chunk...).Err(); err != nil {
			return fail(ctx, "delete contest", err)
		}
	}
	if err := p.client.Publish(ctx, base, "0").Err(); err != nil {
		return fail(ctx, "delete contest", err)
	}
	return nil
}
