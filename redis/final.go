package redis

import (
	"context"
	"errors"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"rankd"
)

// Final standings are cached in Redis beside the projection, for the servers of the distributed mode to share:
// the store (rankd.FinalStore) is the truth, Redis a copy that any server fills.
//
//	<base>:final      N, the active version (the store's number of it)
//	<base>:final:v<N> the final standings of version N, in one value (rankd.EncodeFinal)
//
// PutFinal writes a version and switches the pointer to it in one script, so a reader sees the previous
// version until then, never a partial one; the replaced version expires OldFinalTTL later. The active one
// expires FinalTTL after it was written, so that Redis never serves for longer than that a version the store
// replaced while Redis could not be told.
const (
	// FinalTTL is how long a version of final standings stays in Redis once written.
	FinalTTL = 10 * time.Minute
	// OldFinalTTL is how long a replaced version stays in Redis after the switch.
	OldFinalTTL = time.Minute
)

var (
	// putFinalScript switches to a new version unless the active one, still held, is the same or later.
	// KEYS[1] the pointer; ARGV version, encoded standings, seconds to live, seconds the replaced one lives.
	// Returns 1 switched, 0 not.
	putFinalScript = goredis.NewScript(`
local cur = tonumber(redis.call('GET', KEYS[1]))
local v = tonumber(ARGV[1])
if cur and cur >= v and redis.call('EXISTS', KEYS[1] .. ':v' .. cur) == 1 then
	return 0
end
redis.call('SET', KEYS[1] .. ':v' .. ARGV[1], ARGV[2], 'EX', ARGV[3])
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
if cur and cur ~= v then
	redis.call('EXPIRE', KEYS[1] .. ':v' .. cur, ARGV[4], 'LT')
end
return 1
`)
	// finalScript reads the active version in one step. KEYS[1] the pointer. Returns the encoded
	// standings, nil when there are none.
	finalScript = goredis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then
	return false
end
return redis.call('GET', KEYS[1] .. ':v' .. cur)
`)
)

// finalKey returns the key of the pointer to a contest's active final standings.
func (p *Projection) finalKey(contestID string) string { return p.base(contestID) + ":final" }

// PutFinal makes f the active final standings of its contest in Redis, unless Redis holds the same or a later
// version: a version is never replaced by an older one, whoever writes last. EINVALID for a contest id that
// cannot name keys or a version below 1; EUNAVAILABLE when Redis is down.
func (p *Projection) PutFinal(ctx context.Context, f rankd.FinalStandings) error {
	if err := checkContestID(f.ContestID); err != nil {
		return err
	}
	if f.Version < 1 {
		return rankd.Errorf(rankd.EINVALID, "final standings of contest %s: version %d, want 1 or more", f.ContestID, f.Version)
	}
	data, err := rankd.EncodeFinal(&f)
	if err != nil {
		return err
	}
	err = putFinalScript.Run(ctx, p.client, []string{p.finalKey(f.ContestID)}, f.Version, data,
		int64(FinalTTL/time.Second), int64(OldFinalTTL/time.Second)).Err()
	if err != nil {
		return fail(ctx, "put final standings", err)
	}
	return nil
}

// Final returns a contest's active final standings in Redis. ENOTFOUND when Redis holds none (never put,
// expired, or lost); EUNAVAILABLE when Redis is down.
func (p *Projection) Final(ctx context.Context, contestID string) (rankd.FinalStandings, error) {
	if err := checkContestID(contestID); err != nil {
		return rankd.FinalStandings{}, err
	}
	data, err := finalScript.RunRO(ctx, p.client, []string{p.finalKey(contestID)}).Text()
	if errors.Is(err, goredis.Nil) {
		return rankd.FinalStandings{}, rankd.Errorf(rankd.ENOTFOUND, "contest %s has no final standings in Redis", contestID)
	}
	if err != nil {
		return rankd.FinalStandings{}, fail(ctx, "read final standings", err)
	}
	f, err := rankd.DecodeFinal([]byte(data))
	if err != nil {
		return rankd.FinalStandings{}, fmt.Errorf("redis: final standings of contest %s: %w", contestID, err)
	}
	f.ContestID = contestID
	return f, nil
}

// FinalVersion returns the version of a contest's active final standings in Redis, 0 when it holds none: one
// GET, for a server to check that the standings it keeps in memory are still the active ones. EUNAVAILABLE
// when Redis is down.
func (p *Projection) FinalVersion(ctx context.Context, contestID string) (int64, error) {
	if err := checkContestID(contestID); err != nil {
		return 0, err
	}
	v, err := p.client.Get(ctx, p.finalKey(contestID)).Int64()
	if errors.Is(err, goredis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fail(ctx, "read final standings version", err)
	}
	return v, nil
}
