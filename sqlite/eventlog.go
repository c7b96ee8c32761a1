package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"rankd"
)

// Append stores the entries of one contest in one transaction; see rankd.EventLog. The entries stored share
// one Stored time, read from the store's clock once per call. A nil accept accepts every entry.
//
// The caller batches entries (group commit): a call costs one fsync whatever its size. It decides about
// each entry with the contest's index, in memory, and stores the entries it keeps in one row (a segment;
// a few for a call of megabytes), whatever their number.
func (db *DB) Append(ctx context.Context, contestID string, entries []rankd.LogEntry, accept func(i int) error) ([]rankd.AppendResult, error) {
	if contestID == "" {
		return nil, rankd.Errorf(rankd.EINVALID, "no contest id given")
	}
	results := make([]rankd.AppendResult, len(entries))
	if len(entries) == 0 {
		return results, nil
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, fail(ctx, "append", err)
	}
	defer rollback(tx)
	a := appendCall{db: db, ctx: ctx, tx: tx, contestID: contestID, entries: entries, results: results}
	defer a.unlock()
	if err := a.run(accept); err != nil {
		a.undo()
		return nil, fail(ctx, "append", err)
	}
	if len(a.segments) == 0 {
		return results, nil // nothing to store: the transaction, a new contest's row with it, is undone
	}
	// Commit is what makes the entries durable (synchronous=FULL): only now are they acknowledged.
	if err := tx.Commit(); err != nil {
		// Should the commit have happened all the same, the next call finds the index behind the log and
		// catches up with it.
		a.undo()
		return nil, fail(ctx, "append", err)
	}
	a.x.pos = a.last
	a.indexList()
	return results, nil
}

// appendCall is the work of one Append call.
type appendCall struct {
	db        *DB
	ctx       context.Context
	tx        *sql.Tx
	contestID string
	entries   []rankd.LogEntry
	results   []rankd.AppendResult

	x        *index // the contest's index; its mu is held from run to unlock
	locked   bool
	base     int64 // the last position of the log before the call
	last     int64 // and after it
	changes  []change
	tokens   []string  // the tokens the call added to the index
	segments []segment // the segments stored
}

// change is a change the call made to the index's objects: what the object had before.
type change struct {
	key  objectKey
	prev version
	had  bool
}

// segment is a segment the call stored.
type segment struct {
	first int64
	count int
	keys  string
}

// owned are an entry's id, token and packed hash, in memory the index may keep.
type owned struct{ id, token, hash string }

// run does Append's work inside the transaction, filling results: it brings the contest's index up to
// date, decides about each entry with it, changing it as it goes, and stores the entries kept.
func (a *appendCall) run(accept func(i int) error) error {
	var key int64
	err := a.tx.StmtContext(a.ctx, a.db.stmts.contest).QueryRowContext(a.ctx, a.contestID).Scan(&key, &a.base)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if key == 0 {
		// The row goes with the call's entries: when none is kept, the transaction is not committed.
		res, err := a.tx.StmtContext(a.ctx, a.db.stmts.insertContest).ExecContext(a.ctx, a.contestID, unixNano(a.db.now()))
		if err != nil {
			return err
		}
		if key, err = res.LastInsertId(); err != nil {
			return err
		}
	}
	// The transaction holds the write lock: nothing is appended until it ends, so the index, once caught
	// up, is the log's.
	a.lock(key)
	if a.x.pos > a.base {
		// Ahead of the log (the file was replaced?): read it again.
		a.db.dropIndex(a.contestID, a.x)
		a.unlock()
		a.lock(key)
	}
	if a.x.pos < a.base {
		if err := a.x.catchUp(a.ctx, a.tx, logPart, a.x.pos); err != nil {
			a.db.dropIndex(a.contestID, a.x)
			return err
		}
	}
	own := a.own()
	keep, err := a.decide(accept, own)
	if err != nil || len(keep) == 0 {
		return err
	}
	return a.store(keep, own, unixNano(a.db.now()))
}

// lock takes the index of the contest with this key.
func (a *appendCall) lock(key int64) {
	a.x = a.db.index(a.contestID, key)
	a.x.mu.Lock()
	a.locked = true
}

// unlock releases the index, if the call holds it.
func (a *appendCall) unlock() {
	if a.locked {
		a.locked = false
		a.x.mu.Unlock()
	}
}

// own returns the ids, tokens and packed hashes of the entries, in one string the index may keep slices
// of: the caller's strings may be slices of larger ones.
func (a *appendCall) own() []owned {
	size := 0
	for i := range a.entries {
		e := &a.entries[i]
		size += len(e.Event.ID) + len(e.Token) + len(e.Hash) + binary.MaxVarintLen32
	}
	buf := make([]byte, 0, size)
	ends := make([]int, 0, 3*len(a.entries))
	for i := range a.entries {
		e := &a.entries[i]
		buf = append(buf, e.Event.ID...)
		ends = append(ends, len(buf))
		buf = append(buf, e.Token...)
		ends = append(ends, len(buf))
		buf = appendHash(buf, e.Hash)
		ends = append(ends, len(buf))
	}
	s := string(buf)
	own := make([]owned, len(a.entries))
	start := 0
	for i := range own {
		e := ends[3*i : 3*i+3]
		own[i] = owned{id: s[start:e[0]], token: s[e[0]:e[1]], hash: s[e[1]:e[2]]}
		start = e[2]
	}
	return own
}

// decide fills results and returns the entries to store, in order. It records each entry kept in the
// index as it goes, so that later entries of the call see it, as they would had it been stored by an
// earlier call; undo takes the changes back.
func (a *appendCall) decide(accept func(i int) error, own []owned) ([]int, error) {
	x := a.x
	var keep []int
	a.last = a.base
	for i := range a.entries {
		e, o := &a.entries[i], &own[i]
		if e.Token != "" {
			if pos := x.tokens[e.Token]; pos > 0 {
				a.results[i] = rankd.AppendResult{Pos: pos, Duplicate: true}
				continue
			}
		}
		// Only the latest version counts: A, B, A are three versions, a second A after them is not.
		key := objectKey{e.Event.Type, e.Event.ID}
		v, had := x.objects[key]
		if v.pos > 0 && e.Hash != "" && o.hash == v.hash {
			a.results[i] = rankd.AppendResult{Pos: v.pos, Duplicate: true}
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
			return nil, err
		}
		a.last++
		a.results[i] = rankd.AppendResult{Pos: a.last}
		key.id = o.id
		a.changes = append(a.changes, change{key: key, prev: v, had: had})
		x.objects[key] = version{pos: a.last, hash: o.hash}
		if e.Token != "" {
			x.tokens[o.token] = a.last
			a.tokens = append(a.tokens, o.token)
		}
		keep = append(keep, i)
	}
	return keep, nil
}

// undo takes back the changes the call made to the index.
func (a *appendCall) undo() {
	if !a.locked {
		return
	}
	for i := len(a.changes) - 1; i >= 0; i-- {
		c := &a.changes[i]
		if c.had {
			a.x.objects[c.key] = c.prev
		} else {
			delete(a.x.objects, c.key)
		}
	}
	for _, t := range a.tokens {
		delete(a.x.tokens, t)
	}
	a.changes, a.tokens = nil, nil
}

// store stores the entries kept, in segments of about maxSegmentBytes of data.
func (a *appendCall) store(keep []int, own []owned, stored int64) error {
	size := 0
	for _, i := range keep {
		size += len(a.entries[i].Data) + 1
	}
	size = min(size, maxSegmentBytes+size/len(keep))
	w := segmentWriter{keys: make([]byte, 0, 64*len(keep)), data: make([]byte, 0, 1+size+2*len(keep))}
	w.reset()
	insert := a.tx.StmtContext(a.ctx, a.db.stmts.insertSegment)
	first := a.results[keep[0]].Pos
	flush := func() error {
		if _, err := insert.ExecContext(a.ctx, a.x.key, first, w.count, stored, w.keys, w.data); err != nil {
			return err
		}
		a.segments = append(a.segments, segment{first: first, count: w.count, keys: string(w.keys)})
		first += int64(w.count)
		w.reset()
		return nil
	}
	for _, i := range keep {
		w.add(&a.entries[i], own[i].hash)
		if len(w.data) >= maxSegmentBytes {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if w.count == 0 {
		return nil
	}
	return flush()
}

// indexList adds the committed segments to the index's submissions list, when the list is where the log
// was before the call. A list behind (never read, or read from an older log) is caught up with when
// next read; one ahead already has them.
func (a *appendCall) indexList() {
	x := a.x
	x.listMu.Lock()
	defer x.listMu.Unlock()
	if x.listPos != a.base {
		return
	}
	for _, s := range a.segments {
		if x.apply(listPart, s.first, s.count, s.keys) != nil {
			return // cannot be: the segment was just written; a reader will catch up with the log
		}
	}
}

// Replay calls fn with the entries of a contest after position after, in order; see rankd.EventLog. The
// segments are streamed from one read transaction, a consistent snapshot: entries appended meanwhile are
// not seen. An unknown contest has no entries. fn may keep the entries it gets: each segment is read into
// memory of its own.
func (db *DB) Replay(ctx context.Context, contestID string, after int64, fn func(*rankd.LogEntry) error) error {
	after = max(after, 0)
	if after == math.MaxInt64 {
		return ctx.Err()
	}
	// The first segment read is the one that holds position after+1.
	rows, err := db.read.QueryContext(ctx, `WITH c (key) AS (SELECT key FROM contests WHERE id = ?)
		SELECT first_pos, count, stored_at, keys, data FROM segments
		WHERE contest = (SELECT key FROM c) AND first_pos >= COALESCE((SELECT MAX(first_pos) FROM segments
			WHERE contest = (SELECT key FROM c) AND first_pos <= ?), 0)
		ORDER BY first_pos`,
		contestID, after+1)
	if err != nil {
		return fail(ctx, "replay", err)
	}
	defer closeRows(rows)
	var d segmentDecoder
	for rows.Next() {
		var first, stored int64
		var count int
		var keys, data sql.RawBytes
		if err := rows.Scan(&first, &count, &stored, &keys, &data); err != nil {
			return fail(ctx, "replay", err)
		}
		entries, err := d.decode(string(keys), bytes.Clone(data), first, count, fromUnixNano(stored))
		if err != nil {
			return fail(ctx, "replay", fmt.Errorf("contest %s, segment at %d: %w", contestID, first, err))
		}
		for i := range entries {
			if entries[i].Pos <= after {
				continue
			}
			if err := fn(&entries[i]); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fail(ctx, "replay", err)
	}
	return nil
}

// Contests returns the ids of the contests that have a log, in id order (bytewise).
func (db *DB) Contests(ctx context.Context) ([]string, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT id FROM contests ORDER BY id`)
	if err != nil {
		return nil, fail(ctx, "contests", err)
	}
	defer closeRows(rows)
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fail(ctx, "contests", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, "contests", err)
	}
	return ids, nil
}
