package sqlite

import (
	"context"
	"database/sql"

	"rankd"
)

// objectKey names an object of a contest's log: what the versions of one object share.
type objectKey struct {
	typ rankd.EventType
	id  string
}

// version is where an object's latest version is in the log and what it holds; pos 0: none.
type version struct {
	pos  int64
	hash string
}

// Append stores the entries of one contest in one transaction; see rankd.EventLog. The entries stored share
// one Stored time, read from the store's clock once per call. A nil accept accepts every entry.
//
// The caller batches entries (group commit): a call costs one fsync whatever its size, and it looks up and
// stores up to 64 entries per statement, prepared once per store.
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
	if err := db.appendTx(ctx, tx, contestID, entries, accept, results); err != nil {
		return nil, fail(ctx, "append", err)
	}
	// Commit is what makes the entries durable (synchronous=FULL): only now are they acknowledged.
	if err := tx.Commit(); err != nil {
		return nil, fail(ctx, "append", err)
	}
	return results, nil
}

// appendTx does Append's work inside tx, filling results. It looks up what the log holds of the batch's
// tokens and objects first, decides about each entry in memory, then stores the entries kept: a few
// multi-row statements instead of several statements per entry.
func (db *DB) appendTx(ctx context.Context, tx *sql.Tx, contestID string, entries []rankd.LogEntry,
	accept func(i int) error, results []rankd.AppendResult) error {
	st := db.stmts.in(ctx, tx)
	var last int64
	if err := st.single(stmtMaxPos).QueryRowContext(ctx, contestID).Scan(&last); err != nil {
		return err
	}
	hasLog := last > 0
	tokens, latest, err := lookup(ctx, st, contestID, entries)
	if err != nil {
		return err
	}

	var keep []int // the entries to store, in order
	for i := range entries {
		e := &entries[i]
		if pos := tokens[e.Token]; e.Token != "" && pos > 0 {
			results[i] = rankd.AppendResult{Pos: pos, Duplicate: true}
			continue
		}
		key := objectKey{e.Event.Type, e.Event.ID}
		// Only the latest version counts: A, B, A are three versions, a second A after them is not.
		if v := latest[key]; v.pos > 0 && e.Hash != "" && e.Hash == v.hash {
			results[i] = rankd.AppendResult{Pos: v.pos, Duplicate: true}
			continue
		}
		if accept != nil {
			if err := accept(i); err != nil {
				results[i] = rankd.AppendResult{Err: err}
				continue
			}
		}
		// accept may take long (it applies the event to a board): a cancelled call stops here.
		if err := ctx.Err(); err != nil {
			return err
		}
		last++
		results[i] = rankd.AppendResult{Pos: last}
		// Later entries of the call see this one, as they would had it been stored by an earlier call.
		latest[key] = version{pos: last, hash: e.Hash}
		if e.Token != "" {
			tokens[e.Token] = last
		}
		keep = append(keep, i)
	}
	if len(keep) == 0 {
		return nil
	}

	stored := unixNano(db.now())
	if !hasLog {
		if _, err := st.single(stmtInsertContest).ExecContext(ctx, contestID, stored); err != nil {
			return err
		}
	}
	args := make([]any, 0, 8*min(len(keep), chunkSizes[0]))
	err = eachChunk(len(keep), func(lo, size, s int) error {
		args = args[:0]
		for _, i := range keep[lo : lo+size] {
			e := &entries[i]
			data := e.Data
			if data == nil {
				data = []byte{} // the column is NOT NULL: no data is an empty line, not a missing one
			}
			args = append(args, contestID, stored, results[i].Pos, int64(e.Event.Type), e.Event.ID, e.Token, e.Hash, data)
		}
		_, err := st.multi(multiInsertEvents, s).ExecContext(ctx, args...)
		return err
	})
	if err != nil {
		return err
	}
	return keepSubmissions(ctx, st, contestID, entries, keep, results)
}

// lookup returns where the log has the tokens of entries (0: not there) and the latest version of their
// objects (pos 0: none), each map holding every token and object of entries.
func lookup(ctx context.Context, st *txStmts, contestID string, entries []rankd.LogEntry) (map[string]int64, map[objectKey]version, error) {
	tokens := make(map[string]int64)
	latest := make(map[objectKey]version, len(entries))
	var toks []string
	var keys []objectKey
	for i := range entries {
		e := &entries[i]
		if _, ok := tokens[e.Token]; e.Token != "" && !ok {
			tokens[e.Token] = 0
			toks = append(toks, e.Token)
		}
		key := objectKey{e.Event.Type, e.Event.ID}
		if _, ok := latest[key]; !ok {
			latest[key] = version{}
			keys = append(keys, key)
		}
	}

	args := make([]any, 0, min(max(len(toks), 2*len(keys)), 2*chunkSizes[0])+2)
	err := eachChunk(len(toks), func(lo, size, s int) error {
		args = args[:0]
		for _, t := range toks[lo : lo+size] {
			args = append(args, t)
		}
		args = append(args, contestID)
		return queryRows(ctx, st.multi(multiTokenPos, s), args, func(rows *sql.Rows) error {
			var i int
			var pos int64
			if err := rows.Scan(&i, &pos); err != nil {
				return err
			}
			tokens[toks[lo+i]] = pos
			return nil
		})
	})
	if err != nil {
		return nil, nil, err
	}
	err = eachChunk(len(keys), func(lo, size, s int) error {
		args = args[:0]
		for _, k := range keys[lo : lo+size] {
			args = append(args, int64(k.typ), k.id)
		}
		args = append(args, contestID, contestID)
		return queryRows(ctx, st.multi(multiLatest, s), args, func(rows *sql.Rows) error {
			var i int
			var v version
			if err := rows.Scan(&i, &v.pos, &v.hash); err != nil {
				return err
			}
			latest[keys[lo+i]] = v
			return nil
		})
	})
	if err != nil {
		return nil, nil, err
	}
	return tokens, latest, nil
}

// queryRows runs a query and calls fn for each row.
func queryRows(ctx context.Context, stmt *sql.Stmt, args []any, fn func(*sql.Rows) error) error {
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer closeRows(rows)
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// keepSubmissions brings the submissions table up to date with the stored entries: a submission's latest
// version replaces the one before, its deletion removes it. Only each submission's last event of the call
// matters, so each is written once.
func keepSubmissions(ctx context.Context, st *txStmts, contestID string, entries []rankd.LogEntry, keep []int,
	results []rankd.AppendResult) error {
	var last map[string]int // submission id → its last entry
	var ids []string        // in order of first appearance, so that the writes are deterministic
	for _, i := range keep {
		ev := &entries[i].Event
		if ev.Type != rankd.EventSubmission || (!ev.Delete && ev.Submission == nil) {
			continue
		}
		if last == nil {
			last = make(map[string]int)
		}
		id := submissionID(ev)
		if _, ok := last[id]; !ok {
			ids = append(ids, id)
		}
		last[id] = i
	}
	var upserts []int
	for _, id := range ids {
		i := last[id]
		if !entries[i].Event.Delete {
			upserts = append(upserts, i)
			continue
		}
		if _, err := st.single(stmtDeleteSubmission).ExecContext(ctx, contestID, id); err != nil {
			return err
		}
	}
	args := make([]any, 0, 6*min(len(upserts), chunkSizes[0]))
	return eachChunk(len(upserts), func(lo, size, s int) error {
		args = args[:0]
		for _, i := range upserts[lo : lo+size] {
			ev := &entries[i].Event
			sub := ev.Submission
			args = append(args, contestID, submissionID(ev), sub.TeamID, sub.ProblemID, sub.Time.Milliseconds(), results[i].Pos)
		}
		_, err := st.multi(multiUpsertSubmissions, s).ExecContext(ctx, args...)
		return err
	})
}

// submissionID returns the id of the submission an event carries or deletes.
func submissionID(ev *rankd.Event) string {
	if ev.ID == "" && ev.Submission != nil {
		return ev.Submission.ID
	}
	return ev.ID
}

// Replay calls fn with the entries of a contest after position after, in order; see rankd.EventLog. The
// rows are streamed from one read transaction, a consistent snapshot: entries appended meanwhile are not
// seen. An unknown contest has no entries.
func (db *DB) Replay(ctx context.Context, contestID string, after int64, fn func(*rankd.LogEntry) error) error {
	rows, err := db.read.QueryContext(ctx,
		`SELECT pos, token, hash, data, stored_at FROM events WHERE contest_id = ? AND pos > ? ORDER BY pos`,
		contestID, after)
	if err != nil {
		return fail(ctx, "replay", err)
	}
	defer closeRows(rows)
	for rows.Next() {
		var e rankd.LogEntry
		var ns int64
		if err := rows.Scan(&e.Pos, &e.Token, &e.Hash, &e.Data, &ns); err != nil {
			return fail(ctx, "replay", err)
		}
		e.Stored = fromUnixNano(ns)
		if err := fn(&e); err != nil {
			return err
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
