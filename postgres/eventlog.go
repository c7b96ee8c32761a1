package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"rankd"
)

// copyMin is the number of entries from which Append writes them with COPY rather than with one INSERT of
// arrays: COPY costs a round trip more, and saves more than that on large calls.
const copyMin = 512

// objectKey is an object of the log: what its versions share.
type objectKey struct {
	typ rankd.EventType
	id  string
}

// tokenUse is where a token is in the log, and the object it came with: the same token with another object
// is not a repeat of its event.
type tokenUse struct {
	pos    int64
	object objectKey
}

// earlierKey is a version of an object, by content.
type earlierKey struct {
	objectKey
	hash string
}

// version is the latest version of an object: its position and hash.
type version struct {
	pos  int64
	hash string
}

// Append stores the entries of one contest in one transaction; see rankd.EventLog. The entries stored share
// one Stored time, the server's clock once the contest is locked.
//
// The transaction locks the contest's row first, so that concurrent calls of one contest, from this node or
// another, run one after another. It then reads, in one round trip, what deduplication needs of the log: the
// positions of the call's tokens, and the latest version of the call's objects. It decides about each entry
// in memory, calling accept, and writes the entries kept, the submissions list's changes and the log's new
// end in a second round trip (COPY for large calls), then commits.
func (db *DB) Append(ctx context.Context, contestID string, entries []rankd.LogEntry, accept func(i int) error) ([]rankd.AppendResult, error) {
	return db.AppendAfter(ctx, contestID, -1, nil, entries, accept)
}

// AppendAfter is Append for a server that follows a log other servers append to too: once the contest is
// locked, and before any accept, it calls tail once with the entries after position after (those the caller
// has not applied yet; none when after < 0), in the same transaction, so that the caller's board is at the
// log's end when it decides about its own entries. An error of tail undoes the call. A log that ends before
// position after, or a contest without one, when after > 0: the contest was deleted since the caller read
// it, and the call fails with ENOTFOUND, whose cause is rankd.ErrContestDeleted, storing nothing.
func (db *DB) AppendAfter(ctx context.Context, contestID string, after int64, tail func([]rankd.LogEntry) error, entries []rankd.LogEntry, accept func(i int) error) ([]rankd.AppendResult, error) {
	if contestID == "" {
		return nil, rankd.Errorf(rankd.EINVALID, "no contest id given")
	}
	if err := checkText("contest id", contestID); err != nil {
		return nil, err
	}
	results := make([]rankd.AppendResult, len(entries))
	if len(entries) == 0 {
		return results, nil
	}
	if err := checkEntries(entries); err != nil {
		return nil, err
	}
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return nil, fail(ctx, "append", err)
	}
	defer rollback(ctx, tx)
	a := appendCall{ctx: ctx, tx: tx, contestID: contestID, entries: entries, results: results, after: after, held: true}
	a.pid, a.holding = db.holderPID()
	if err := a.lookup(); errors.Is(err, rankd.ErrContestDeleted) {
		return nil, err
	} else if err != nil {
		return nil, fail(ctx, "append", err)
	}
	if !a.held {
		// The lock went with a lost session: take it again before storing anything, unless another server
		// holds it now.
		if err := db.relock(ctx, a.pid); err != nil {
			return nil, err
		}
	}
	if tail != nil && len(a.tail) > 0 {
		if err := tail(a.tail); err != nil {
			return nil, err
		}
	}
	if err := a.decide(accept); err != nil {
		return nil, fail(ctx, "append", err)
	}
	rankd.Decided(ctx)
	if len(a.keep) == 0 && len(a.aliases) == 0 {
		return results, nil // nothing to store: the transaction, a new contest's row with it, is undone
	}
	if err := a.store(); err != nil {
		return nil, fail(ctx, "append", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fail(ctx, "append", err)
	}
	if k := rankd.LogKeyOf(ctx); k != nil {
		*k = a.key
	}
	return results, nil
}

// LogKey returns the key of a contest's log: a contest deleted and created again has a new one. 0 when the
// contest has no log.
func (db *DB) LogKey(ctx context.Context, contestID string) (int64, error) {
	var key int64
	if !rankd.ValidText(contestID) {
		return 0, nil
	}
	err := db.pool.QueryRow(ctx, `SELECT key FROM contests WHERE id = $1`, contestID).Scan(&key)
	if err != nil && !errNoRows(err) {
		return 0, fail(ctx, "log key", err)
	}
	return key, nil
}

// checkEntries refuses entries whose strings PostgreSQL cannot keep as text.
func checkEntries(entries []rankd.LogEntry) error {
	for i := range entries {
		e := &entries[i]
		ev := e.Event
		ev.Token = e.Token
		if err := rankd.CheckIDs(&ev); err != nil {
			return rankd.Errorf(rankd.EINVALID, "entry %d: %s", i, rankd.ErrorMessage(err))
		}
	}
	return nil
}

// appendCall is the work of one Append call.
type appendCall struct {
	ctx       context.Context
	tx        pgx.Tx
	contestID string
	entries   []rankd.LogEntry
	results   []rankd.AppendResult

	key     int64 // the contest's key; 0 until it has a row
	base    int64 // the last position of the log before the call
	stored  time.Time
	tokens  map[string]tokenUse   // each token of the call found in the log, or stored by the call
	objects map[objectKey]version // latest version of each object of the call, in the log or stored by the call
	// earlier versions of the call's objects that move forward (rankd.EventType.MovesForward) found in the log or
	// replaced by the call: the position of each by object and hash
	earlier map[earlierKey]int64
	keep    []int // the entries to store, in order
	aliases []int // the duplicate entries whose tokens, new to the log, are to be stored (see duplicate)
	after   int64 // the caller's position: the entries after it are read into tail; < 0: none
	tail    []rankd.LogEntry
	// holding says that the store holds the lock of HoldExclusive or HoldShared, in server process pid;
	// lookup sets held to whether that process still holds it.
	holding bool
	pid     uint32
	held    bool
}

// lockQuery locks a contest's row and returns its key and the log's last position. In a batch, the queries
// after it run once the lock is held.
const lockQuery = `SELECT key, last_pos FROM contests WHERE id = $1 FOR UPDATE`

// lookup locks the contest and reads what deduplication needs, in one round trip; a new contest gets its row.
func (a *appendCall) lookup() error {
	var tokens []string
	var types, vTypes []int16
	var ids, vIDs []string
	var vHashes [][]byte
	a.tokens = make(map[string]tokenUse)
	a.objects = make(map[objectKey]version)
	a.earlier = make(map[earlierKey]int64)
	for i := range a.entries {
		e := &a.entries[i]
		if e.Token != "" {
			if _, ok := a.tokens[e.Token]; !ok {
				a.tokens[e.Token] = tokenUse{}
				tokens = append(tokens, e.Token)
			}
		}
		// Only an entry with a hash can be a duplicate by content.
		if e.Hash != "" {
			k := objectKey{e.Event.Type, e.Event.ID}
			if _, ok := a.objects[k]; !ok {
				a.objects[k] = version{}
				types = append(types, int16(k.typ))
				ids = append(ids, k.id)
			}
			if ek := (earlierKey{k, e.Hash}); k.typ.MovesForward() {
				if _, ok := a.earlier[ek]; !ok {
					a.earlier[ek] = 0
					vTypes, vIDs, vHashes = append(vTypes, int16(k.typ)), append(vIDs, k.id), append(vHashes, []byte(e.Hash))
				}
			}
		}
	}
	clear(a.tokens)
	clear(a.objects)
	clear(a.earlier)

	var b pgx.Batch
	b.Queue(lockQuery, a.contestID).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&a.key, &a.base)
		if errNoRows(err) {
			return nil
		}
		return err
	})
	if len(tokens) > 0 {
		b.Queue(`WITH c (key) AS (SELECT key FROM contests WHERE id = $1)
			SELECT token, pos, type, object_id FROM events WHERE contest = (SELECT key FROM c) AND token = ANY($2::text[])
			UNION ALL
			SELECT token, pos, type, object_id FROM token_aliases WHERE contest = (SELECT key FROM c) AND token = ANY($2::text[])`,
			a.contestID, tokens).Query(func(rows pgx.Rows) error {
			var token string
			var use tokenUse
			var typ int16
			_, err := pgx.ForEachRow(rows, []any{&token, &use.pos, &typ, &use.object.id}, func() error {
				use.object.typ = rankd.EventType(typ)
				a.tokens[token] = use
				return nil
			})
			return err
		})
	}
	if len(ids) > 0 {
		b.Queue(`SELECT k.type, k.id, e.pos, e.hash
			FROM unnest($2::smallint[], $3::text[]) AS k (type, id)
			CROSS JOIN LATERAL (
				SELECT pos, hash FROM events
				WHERE contest = (SELECT key FROM contests WHERE id = $1) AND type = k.type AND object_id = k.id
				ORDER BY pos DESC LIMIT 1
			) AS e`,
			a.contestID, types, ids).Query(func(rows pgx.Rows) error {
			var typ int16
			var id string
			var v version
			var hash []byte
			_, err := pgx.ForEachRow(rows, []any{&typ, &id, &v.pos, &hash}, func() error {
				v.hash = string(hash)
				a.objects[objectKey{rankd.EventType(typ), id}] = v
				return nil
			})
			return err
		})
	}
	if len(vTypes) > 0 {
		b.Queue(`SELECT e.type, e.object_id, e.hash, min(e.pos)
			FROM unnest($2::smallint[], $3::text[], $4::bytea[]) AS k (type, id, hash)
			JOIN events AS e ON e.contest = (SELECT key FROM contests WHERE id = $1)
				AND e.type = k.type AND e.object_id = k.id AND e.hash = k.hash
			GROUP BY 1, 2, 3`,
			a.contestID, vTypes, vIDs, vHashes).Query(func(rows pgx.Rows) error {
			var typ int16
			var id string
			var hash []byte
			var pos int64
			_, err := pgx.ForEachRow(rows, []any{&typ, &id, &hash, &pos}, func() error {
				a.earlier[earlierKey{objectKey{rankd.EventType(typ), id}, string(hash)}] = pos
				return nil
			})
			return err
		})
	}
	a.tail = a.tail[:0]
	if a.after >= 0 {
		b.Queue(replayQuery, a.contestID, a.after).Query(func(rows pgx.Rows) error {
			return scanEntries(rows, nil, func(e *rankd.LogEntry) error {
				a.tail = append(a.tail, *e)
				return nil
			})
		})
	}
	if a.holding {
		b.Queue(heldQuery, exclusiveLock, a.pid).QueryRow(func(row pgx.Row) error { return row.Scan(&a.held) })
	}
	b.Queue(`SELECT clock_timestamp()`).QueryRow(func(row pgx.Row) error { return row.Scan(&a.stored) })
	if err := a.tx.SendBatch(a.ctx, &b).Close(); err != nil {
		return err
	}
	// A log that ends before the caller's board, or is gone, was deleted since the board read it: its entries
	// would start a new log (or continue one) that the board knows nothing of.
	want := rankd.LogKeyOf(a.ctx)
	if a.after > 0 && (a.key == 0 || a.base < a.after) || want != nil && *want != 0 && a.key != 0 && a.key != *want {
		return &rankd.Error{Code: rankd.ENOTFOUND, Err: rankd.ErrContestDeleted,
			Message: fmt.Sprintf("contest %q was deleted", a.contestID)}
	}
	if a.key != 0 {
		return nil
	}
	// A new contest. Its row goes with the call's entries: when none is kept, the transaction is not
	// committed. Should another call be creating it too, the insert waits for that call's end, and then either
	// creates the row (the other call stored nothing) or finds it, and locks it.
	err := a.tx.QueryRow(a.ctx, `INSERT INTO contests (id, last_pos) VALUES ($1, 0) ON CONFLICT (id) DO NOTHING
		RETURNING key, last_pos`, a.contestID).Scan(&a.key, &a.base)
	if !errNoRows(err) {
		return err
	}
	// Created meanwhile: its log is no longer empty, so read it as any other.
	a.key = 0
	return a.lookup()
}

// decide fills results and a.keep. It records each entry kept as it goes, so that later entries of the call see
// it as they would had it been stored by an earlier call.
func (a *appendCall) decide(accept func(i int) error) error {
	last := a.base
	var dropped []int // entries whose taken token was dropped (rankd.LogEntry.DropTakenToken)
	defer func() {
		for _, i := range dropped {
			a.results[i].TokenDropped = true
		}
	}()
	for i := range a.entries {
		e := &a.entries[i]
		key := objectKey{e.Event.Type, e.Event.ID}
		if e.Token != "" {
			switch use := a.tokens[e.Token]; {
			case use.pos > 0 && use.object == key && (!e.DropTakenToken || !a.newVersion(e, key, use.pos)):
				a.results[i] = rankd.AppendResult{Pos: use.pos, Duplicate: true}
				continue
			case use.pos > 0 && !e.DropTakenToken:
				a.results[i] = rankd.AppendResult{Err: rankd.TokenTaken(e)}
				continue
			case use.pos > 0:
				e.Token = ""
				dropped = append(dropped, i)
			}
		}
		// The latest version sent again is a repeat; an earlier one is too for objects that only move forward
		// (rankd.EventType.MovesForward), unless it deletes or re-creates its object (rankd.LogEntry.Deletion)
		// or is the server's own (rankd.LogEntry.Own): for others A, B, A are three versions, a second A after
		// them is not.
		v := a.objects[key]
		if v.pos > 0 && e.Hash != "" && e.Hash == v.hash {
			a.duplicate(i, v.pos)
			continue
		}
		if pos := a.earlier[earlierKey{key, e.Hash}]; pos > 0 && e.Hash != "" && !e.Own && (e.Deletion == "" || (e.Hash == e.Deletion) == (v.hash == e.Deletion)) {
			a.duplicate(i, pos)
			continue
		}
		if accept != nil {
			if err := accept(i); err != nil {
				a.results[i] = rankd.AppendResult{Err: err}
				continue
			}
		}
		// accept may take long (it applies the event to a board): a cancelled call stops here.
		if err := a.ctx.Err(); err != nil {
			return err
		}
		last++
		a.results[i] = rankd.AppendResult{Pos: last}
		if v.pos > 0 && v.hash != "" && key.typ.MovesForward() {
			ek := earlierKey{key, v.hash}
			if a.earlier[ek] == 0 {
				a.earlier[ek] = v.pos
			}
		}
		a.objects[key] = version{pos: last, hash: e.Hash}
		if e.Token != "" {
			a.tokens[e.Token] = tokenUse{pos: last, object: key}
		}
		a.keep = append(a.keep, i)
	}
	return nil
}

// newVersion reports whether entry e of object key, whose token names the object's version at pos, is a
// version the log does not hold: not the object's latest, nor an earlier one of an object that only moves
// forward, nor, for other objects, anything but what the token names, when the token names the latest. A
// feed whose events were numbered anew gives a new version a token that named an older one (the contest's
// state, most of all); a feed read again gives each version the token it had.
func (a *appendCall) newVersion(e *rankd.LogEntry, key objectKey, pos int64) bool {
	v := a.objects[key]
	switch {
	case e.Hash == "" || v.pos == 0 || e.Hash == v.hash:
		return false
	case key.typ.MovesForward():
		return a.earlier[earlierKey{key, e.Hash}] == 0
	}
	return v.pos == pos
}

// duplicate answers entry i as a repeat of the event at pos. A token new to the log becomes another name of
// that event, stored with the call.
func (a *appendCall) duplicate(i int, pos int64) {
	a.results[i] = rankd.AppendResult{Pos: pos, Duplicate: true}
	e := &a.entries[i]
	if e.Token == "" {
		return
	}
	a.tokens[e.Token] = tokenUse{pos: pos, object: objectKey{e.Event.Type, e.Event.ID}}
	a.aliases = append(a.aliases, i)
}

// store writes the entries kept, the submissions list's changes, the log's new end and the aliases.
func (a *appendCall) store() error {
	n := len(a.keep)
	last := a.base + int64(n)
	var b pgx.Batch
	if len(a.aliases) > 0 {
		tokens, positions, types, ids := make([]string, len(a.aliases)), make([]int64, len(a.aliases)), make([]int16, len(a.aliases)), make([]string, len(a.aliases))
		for j, i := range a.aliases {
			e := &a.entries[i]
			tokens[j], positions[j], types[j], ids[j] = e.Token, a.results[i].Pos, int16(e.Event.Type), e.Event.ID
		}
		b.Queue(`INSERT INTO token_aliases (contest, token, pos, type, object_id)
			SELECT $1, u.token, u.pos, u.type, u.object_id FROM unnest($2::text[], $3::bigint[], $4::smallint[], $5::text[])
				AS u (token, pos, type, object_id)`, a.key, tokens, positions, types, ids)
	}
	if n == 0 {
		return a.tx.SendBatch(a.ctx, &b).Close()
	}
	if n >= copyMin {
		if _, err := a.tx.CopyFrom(a.ctx, pgx.Identifier{"events"},
			[]string{"contest", "pos", "type", "object_id", "token", "hash", "data", "stored_at"},
			&eventRows{a: a, i: -1}); err != nil {
			return err
		}
	} else {
		types := make([]int16, n)
		ids := make([]string, n)
		tokens := make([]string, n)
		hashes := make([][]byte, n)
		data := make([][]byte, n)
		for j, i := range a.keep {
			e := &a.entries[i]
			types[j], ids[j], tokens[j], hashes[j], data[j] = int16(e.Event.Type), e.Event.ID, e.Token, []byte(e.Hash), e.Data
			if data[j] == nil {
				data[j] = []byte{}
			}
		}
		b.Queue(`INSERT INTO events (contest, pos, type, object_id, token, hash, data, stored_at)
			SELECT $1, $2 + u.ord, u.type, u.object_id, NULLIF(u.token, ''), NULLIF(u.hash, '\x'::bytea), u.data, $3
			FROM unnest($4::smallint[], $5::text[], $6::text[], $7::bytea[], $8::bytea[])
				WITH ORDINALITY AS u (type, object_id, token, hash, data, ord)`,
			a.key, a.base, a.stored, types, ids, tokens, hashes, data)
	}
	a.queueSubmissions(&b)
	b.Queue(`UPDATE contests SET last_pos = $2 WHERE key = $1`, a.key, last)
	return a.tx.SendBatch(a.ctx, &b).Close()
}

// queueSubmissions queues the changes the entries kept make to the submissions list: each submission's last
// version kept replaces it, or removes it when it is a deletion.
func (a *appendCall) queueSubmissions(b *pgx.Batch) {
	type change struct {
		pos int64
		sub *rankd.Submission // nil: deleted
	}
	var changes map[string]change
	var order []string
	for _, i := range a.keep {
		e := &a.entries[i]
		if e.Event.Type != rankd.EventSubmission {
			continue
		}
		var id string
		var c change
		switch {
		case e.Event.Delete:
			id, c = e.Event.ID, change{pos: a.results[i].Pos}
		case e.Event.Submission != nil:
			id, c = e.Event.Submission.ID, change{pos: a.results[i].Pos, sub: e.Event.Submission}
		default:
			continue
		}
		if changes == nil {
			changes = make(map[string]change)
		}
		if _, ok := changes[id]; !ok {
			order = append(order, id)
		}
		changes[id] = c
	}
	if len(changes) == 0 {
		return
	}
	var gone, ids, teams, problems []string
	var times, positions []int64
	for _, id := range order {
		c := changes[id]
		if c.sub == nil {
			gone = append(gone, id)
			continue
		}
		ids = append(ids, id)
		teams = append(teams, c.sub.TeamID)
		problems = append(problems, c.sub.ProblemID)
		times = append(times, c.sub.Time.Milliseconds())
		positions = append(positions, c.pos)
	}
	if len(gone) > 0 {
		b.Queue(`DELETE FROM submissions WHERE contest = $1 AND id = ANY($2::text[])`, a.key, gone)
	}
	if len(ids) > 0 {
		b.Queue(`INSERT INTO submissions (contest, id, team_id, problem_id, time_ms, pos)
			SELECT $1, u.* FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[]) AS u
			ON CONFLICT (contest, id) DO UPDATE SET team_id = excluded.team_id, problem_id = excluded.problem_id,
				time_ms = excluded.time_ms, pos = excluded.pos`,
			a.key, ids, teams, problems, times, positions)
	}
}

// eventRows is the source of COPY: the entries kept, as rows of events.
type eventRows struct {
	a   *appendCall
	i   int
	row [8]any
}

func (r *eventRows) Next() bool {
	r.i++
	return r.i < len(r.a.keep)
}

func (r *eventRows) Values() ([]any, error) {
	a := r.a
	e := &a.entries[a.keep[r.i]]
	var token, hash any
	if e.Token != "" {
		token = e.Token
	}
	if e.Hash != "" {
		hash = []byte(e.Hash)
	}
	data := e.Data
	if data == nil {
		data = []byte{}
	}
	r.row = [8]any{a.key, a.base + int64(r.i) + 1, int16(e.Event.Type), e.Event.ID, token, hash, data, a.stored}
	return r.row[:], nil
}

func (r *eventRows) Err() error { return nil }

// Replay calls fn with the entries of a contest after position after, in order; see rankd.EventLog. The
// entries are streamed from one query, a consistent snapshot: entries appended meanwhile are not seen. An
// unknown contest has no entries. fn may keep the entries it gets. When ctx carries a log key
// (rankd.WithLogKey), the entries read are checked to be of that log, as Append's are: entries of another
// log of the contest's id fail the call with ErrContestDeleted before fn sees them, and entries read set the
// key when it is 0 (a call that reads none leaves it as it is: the contest may have no log, or another one
// not as long).
func (db *DB) Replay(ctx context.Context, contestID string, after int64, fn func(*rankd.LogEntry) error) error {
	after = max(after, 0)
	if after == math.MaxInt64 || !rankd.ValidText(contestID) {
		return ctx.Err() // nothing after the end; no such contest
	}
	rows, err := db.pool.Query(ctx, replayQuery, contestID, after)
	if err != nil {
		return fail(ctx, "replay", err)
	}
	var check func(key int64) error
	if want := rankd.LogKeyOf(ctx); want != nil {
		check = func(key int64) error {
			if *want != 0 && key != *want {
				return &rankd.Error{Code: rankd.ENOTFOUND, Err: rankd.ErrContestDeleted,
					Message: fmt.Sprintf("contest %q was deleted", contestID)}
			}
			*want = key
			return nil
		}
	}
	if err := scanEntries(rows, check, fn); err != nil {
		if ce, ours := err.(callerError); ours {
			return ce.err
		}
		return fail(ctx, "replay", err)
	}
	return nil
}

// replayQuery reads a contest's entries after a position, in order, each with its log's key.
const replayQuery = `SELECT contest, pos, COALESCE(token, ''), hash, data, stored_at FROM events
	WHERE contest = (SELECT key FROM contests WHERE id = $1) AND pos > $2
	ORDER BY pos`

// callerError carries an error of the caller's function through scanEntries, so that it is returned as it is.
type callerError struct{ err error }

func (e callerError) Error() string { return e.err.Error() }

// scanEntries calls fn with each entry of rows (of replayQuery), and closes rows. check, when not nil, is
// given the log's key before the first entry; its error ends the scan and is returned as it is.
func scanEntries(rows pgx.Rows, check func(key int64) error, fn func(*rankd.LogEntry) error) error {
	defer rows.Close()
	var e rankd.LogEntry
	var key int64
	var hash []byte
	for rows.Next() {
		e = rankd.LogEntry{}
		if err := rows.Scan(&key, &e.Pos, &e.Token, &hash, &e.Data, &e.Stored); err != nil {
			return err
		}
		if check != nil {
			if err := check(key); err != nil {
				return callerError{err}
			}
			check = nil
		}
		e.Hash = string(hash)
		e.Stored = e.Stored.UTC()
		if e.Data == nil {
			e.Data = []byte{}
		}
		if err := fn(&e); err != nil {
			return callerError{err}
		}
	}
	return rows.Err()
}

// Contests returns the ids of the contests that have a log, in id order (bytewise).
func (db *DB) Contests(ctx context.Context) ([]string, error) {
	rows, err := db.pool.Query(ctx, `SELECT id FROM contests ORDER BY id`)
	if err != nil {
		return nil, fail(ctx, "contests", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fail(ctx, "contests", err)
	}
	return ids, nil
}

// Began returns when a contest's log began; see rankd.EventLog.
func (db *DB) Began(ctx context.Context, contestID string) (time.Time, error) {
	if !rankd.ValidText(contestID) {
		return time.Time{}, nil
	}
	var stored time.Time
	err := db.pool.QueryRow(ctx, `SELECT stored_at FROM events
		WHERE contest = (SELECT key FROM contests WHERE id = $1) ORDER BY pos LIMIT 1`, contestID).Scan(&stored)
	switch {
	case errNoRows(err):
		return time.Time{}, nil
	case err != nil:
		return time.Time{}, fail(ctx, "log start", err)
	}
	return stored.UTC(), nil
}
