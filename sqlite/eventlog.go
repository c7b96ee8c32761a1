package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

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
		return nil, failWrite(ctx, "append", err)
	}
	defer rollback(tx)
	a := appendCall{db: db, ctx: ctx, tx: tx, contestID: contestID, entries: entries, results: results}
	defer a.unlock()
	if err := a.run(accept); err != nil {
		a.undo()
		return nil, failWrite(ctx, "append", err)
	}
	if a.segments == 0 && len(a.aliases) == 0 {
		return results, nil // nothing to store: the transaction, a new contest's row with it, is undone
	}
	// Commit is what makes the entries durable (synchronous=FULL): only now are they acknowledged. The file
	// is looked at again first: deleted while the call ran, it would take them nowhere.
	if err := db.checkFile(); err != nil {
		a.undo()
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		// Should the commit have happened all the same, the next call finds the index behind the log and
		// catches up with it.
		a.undo()
		return nil, failWrite(ctx, "append", err)
	}
	a.x.pos = a.last
	db.wroteWAL(a.bytes)
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
	hashes   string
	ends     []int        // entry i's hash, packed (see appendHash), is hashes[ends[i-1]:ends[i]]
	arenas   [2]arenaMark // the sizes of the arenas of objects and tokens before the call's changes (once marked)
	marked   bool
	changes  []change // the changes the call made to objects
	tokens   int      // the number of entries the call added to the tokens table (tokens, versions, aliases)
	segments int      // the segments stored
	bytes    int      // their size
	aliases  []alias  // the tokens of duplicate entries new to the log, to store
}

// alias is the token of an entry that repeats the event at pos, of object typ and id: another name of that
// event (see rankd.AppendResult.Duplicate).
type alias struct {
	token string
	pos   int64
	typ   rankd.EventType
	id    string
}

// change is a change the call made to the index's objects: entry i's position and hash before, or its
// addition.
type change struct {
	i     int
	pos   int64
	hash  hashDigest
	added bool
}

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
	// What the call adds to the arenas from here on is what undo takes back; what the catch-up added stays,
	// as the entries it indexed do.
	a.arenas, a.marked = [2]arenaMark{a.x.objects.arena.mark(), a.x.tokens.arena.mark()}, true
	a.packHashes()
	keep, err := a.decide(accept)
	if err != nil {
		return err
	}
	rankd.Decided(a.ctx)
	if err := a.storeAliases(); err != nil {
		return err
	}
	if len(keep) == 0 {
		return nil
	}
	return a.store(keep, unixNano(a.db.now()))
}

// storeAliases stores the call's aliases.
func (a *appendCall) storeAliases() error {
	if len(a.aliases) == 0 {
		return nil
	}
	insert := a.tx.StmtContext(a.ctx, a.db.stmts.insertAlias)
	for _, al := range a.aliases {
		if _, err := insert.ExecContext(a.ctx, a.x.key, al.token, al.pos, int64(al.typ), al.id); err != nil {
			return err
		}
	}
	return nil
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

// packHashes packs the hashes of the entries (see appendHash), in one string.
func (a *appendCall) packHashes() {
	size := 0
	for i := range a.entries {
		size += len(a.entries[i].Hash) + binary.MaxVarintLen32
	}
	buf := make([]byte, 0, size)
	a.ends = make([]int, len(a.entries))
	for i := range a.entries {
		buf = appendHash(buf, a.entries[i].Hash)
		a.ends[i] = len(buf)
	}
	a.hashes = string(buf)
}

// hash returns entry i's hash, packed.
func (a *appendCall) hash(i int) string {
	start := 0
	if i > 0 {
		start = a.ends[i-1]
	}
	return a.hashes[start:a.ends[i]]
}

// decide fills results and returns the entries to store, in order. It records each entry kept in the
// index as it goes, so that later entries of the call see it, as they would had it been stored by an
// earlier call; undo takes the changes back.
func (a *appendCall) decide(accept func(i int) error) ([]int, error) {
	objects, tokens := &a.x.objects, &a.x.tokens
	keep := make([]int, 0, len(a.entries))
	var dropped []int // entries whose taken token was dropped (rankd.LogEntry.DropTakenToken)
	defer func() {
		for _, i := range dropped {
			a.results[i].TokenDropped = true
		}
	}()
	a.changes = make([]change, 0, len(a.entries))
	a.last = a.base
	for i := range a.entries {
		e := &a.entries[i]
		on := name{uint8(e.Event.Type), e.Event.ID}
		oh := nameHash(on)
		var tn name
		var tk uint64
		var tTaken bool
		if e.Token != "" {
			tn = name{0, e.Token}
			tk = key(tn)
			j, found, taken := tokens.get(tk, tn)
			switch {
			case found && tokens.at(j).hash == ownerDigest(oh) && (!e.DropTakenToken || !a.newVersion(i, on, tokens.at(j).pos)):
				a.results[i] = rankd.AppendResult{Pos: tokens.at(j).pos, Duplicate: true}
				continue
			case found && !e.DropTakenToken:
				a.results[i] = rankd.AppendResult{Err: rankd.TokenTaken(e)}
				continue
			case found:
				e.Token, tn, tk = "", name{}, 0
				dropped = append(dropped, i)
			default:
				tTaken = taken
			}
		}
		// The latest version sent again is a repeat; an earlier one is too for objects that only move forward
		// (rankd.EventType.MovesForward), unless it deletes or re-creates its object (rankd.LogEntry.Deletion)
		// or is the server's own (rankd.LogEntry.Own): for others A, B, A are three versions, a second A after
		// them is not.
		ok := keyOf(oh)
		j, found, taken := objects.get(ok, on)
		h := a.hash(i)
		var o *entry
		if found {
			o = objects.at(j)
			if e.Hash != "" && objects.sameHash(&o.hash, h) {
				a.duplicate(i, o.pos, tn, tk, tTaken, oh)
				continue
			}
			pos, ok := a.x.earlierVersion(e.Event.Type, e.Event.ID, h)
			if e.Hash != "" && ok && !e.Own && (e.Deletion == "" || (e.Hash == e.Deletion) == objects.sameHash(&o.hash, string(appendHash(nil, e.Deletion)))) {
				a.duplicate(i, pos, tn, tk, tTaken, oh)
				continue
			}
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
		if found {
			a.changes = append(a.changes, change{i: j, pos: o.pos, hash: o.hash})
			if a.x.keepVersion(e.Event.Type, e.Event.ID, o) {
				a.tokens++
				if e.Token != "" {
					// The version kept may have taken the token's key: look again, or the token's entry
					// would take its place in the table's map and the version would be lost.
					_, _, tTaken = tokens.get(tk, tn)
				}
			}
			o.pos, o.hash = a.last, objects.makeDigest(h)
		} else {
			j = objects.add(ok, on, taken, a.last, objects.makeDigest(h))
			a.changes = append(a.changes, change{i: j, added: true})
		}
		if e.Token != "" {
			tokens.add(tk, tn, tTaken, a.last, ownerDigest(oh))
			a.tokens++
		}
		keep = append(keep, i)
	}
	return keep, nil
}

// newVersion reports whether entry i, whose token names the version of its object (named on) at pos, is a
// version the log does not hold: not the object's latest, nor an earlier one of an object that only moves
// forward, nor, for other objects, anything but what the token names, when the token names the latest. A
// feed whose events were numbered anew gives a new version a token that named an older one (the contest's
// state, most of all); a feed read again gives each version the token it had.
func (a *appendCall) newVersion(i int, on name, pos int64) bool {
	e := &a.entries[i]
	if e.Hash == "" {
		return false
	}
	objects := &a.x.objects
	j, found, _ := objects.get(keyOf(nameHash(on)), on)
	if !found {
		return false
	}
	o := objects.at(j)
	h := a.hash(i)
	if objects.sameHash(&o.hash, h) {
		return false
	}
	if e.Event.Type.MovesForward() {
		_, earlier := a.x.earlierVersion(e.Event.Type, e.Event.ID, h)
		return !earlier
	}
	return o.pos == pos
}

// duplicate answers entry i as a repeat of the event at pos, whose object's nameHash is oh. A token new to
// the log (tn, of key tk, taken as tokens.get said) becomes another name of that event, kept in the tokens
// and stored with the call.
func (a *appendCall) duplicate(i int, pos int64, tn name, tk uint64, taken bool, oh uint64) {
	a.results[i] = rankd.AppendResult{Pos: pos, Duplicate: true}
	e := &a.entries[i]
	if e.Token == "" {
		return
	}
	a.x.tokens.add(tk, tn, taken, pos, ownerDigest(oh))
	a.tokens++
	a.aliases = append(a.aliases, alias{token: e.Token, pos: pos, typ: e.Event.Type, id: e.Event.ID})
}

// undo takes back the changes the call made to the index, last first.
func (a *appendCall) undo() {
	if !a.locked {
		return
	}
	objects, tokens := &a.x.objects, &a.x.tokens
	for i := len(a.changes) - 1; i >= 0; i-- {
		c := &a.changes[i]
		if c.added {
			objects.removeLast()
		} else {
			e := objects.at(c.i)
			e.pos, e.hash = c.pos, c.hash
		}
	}
	for range a.tokens {
		tokens.removeLast()
	}
	if a.marked {
		objects.arena.truncate(a.arenas[0])
		tokens.arena.truncate(a.arenas[1])
	}
	a.changes, a.tokens = nil, 0
}

// store stores the entries kept, in segments of about maxSegmentBytes of data.
func (a *appendCall) store(keep []int, stored int64) error {
	size := 0
	for _, i := range keep {
		size += len(a.entries[i].Data) + binary.MaxVarintLen32
	}
	size = min(size, maxSegmentBytes+size/len(keep))
	w := writers.Get().(*segmentWriter)
	defer writers.Put(w)
	w.keys = slices.Grow(w.keys[:0], 1+64*len(keep))
	w.data = slices.Grow(w.data[:0], size)
	w.reset()
	insert := a.tx.StmtContext(a.ctx, a.db.stmts.insertSegment)
	first := a.results[keep[0]].Pos
	flush := func() error {
		// The driver copies the blobs: w is free again when the statement returns.
		keys, data := w.columns()
		if _, err := insert.ExecContext(a.ctx, a.x.key, first, w.count, stored, keys, data); err != nil {
			return err
		}
		a.segments++
		a.bytes += len(keys) + len(data)
		first += int64(w.count)
		w.reset()
		return nil
	}
	for _, i := range keep {
		w.add(&a.entries[i], a.hash(i))
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

// writers are the segment writers of Append calls, whose buffers are reused from one call to the next.
var writers = sync.Pool{New: func() any { return new(segmentWriter) }}

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
		entries, err := d.decode(keys, data, first, count, fromUnixNano(stored))
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

// Began returns when a contest's log began; see rankd.EventLog.
func (db *DB) Began(ctx context.Context, contestID string) (time.Time, error) {
	var stored int64
	err := db.read.QueryRowContext(ctx, `SELECT stored_at FROM segments
		WHERE contest = (SELECT key FROM contests WHERE id = ?) ORDER BY first_pos LIMIT 1`, contestID).Scan(&stored)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return time.Time{}, nil
	case err != nil:
		return time.Time{}, fail(ctx, "log start", err)
	}
	return fromUnixNano(stored), nil
}
