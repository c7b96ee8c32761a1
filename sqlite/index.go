package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"time"

	"rankd"
)

// index is what the store keeps in memory of a contest's log: the latest version of every object and the
// position of every token (to find duplicates), and the submissions list. It is derived from the log alone
// (the keys of its segments), read once per contest when first needed; a log another process appended to
// is caught up with from the file.
//
// Its two parts have a lock each. The log's state (objects, tokens) is Append's alone: a call holds mu
// from the start of its transaction to its end, and changes the state as it decides, undoing the changes
// if it fails. It is kept in tables the garbage collector does not scan (see table). The submissions list
// is Submissions' alone: each call catches it up with the segments committed since the last one, so that
// Append, the store's serial path, never spends time on it. Lock order: the writer's connection (a
// transaction), mu; listMu alone; DB.mu alone.
type index struct {
	key int64 // the contest's key

	mu      sync.Mutex
	pos     int64 // the last position of the log that objects and tokens hold
	objects table // by type and id (see key): the latest version's position and hash
	tokens  table // by token (tag 0): the position

	listMu  sync.RWMutex
	listPos int64 // the last position of the log that subs holds
	subs    submissionList
}

func newIndex(key int64) *index {
	return &index{
		key:  key,
		subs: submissionList{byID: make(map[string]*rankd.SubmissionRecord), team: make(map[string][]*rankd.SubmissionRecord)},
	}
}

// index returns the index of a contest, an empty one if it has none yet. key is the contest's key.
func (db *DB) index(contestID string, key int64) *index {
	db.mu.Lock()
	defer db.mu.Unlock()
	x := db.indexes[contestID]
	if x == nil || x.key != key {
		x = newIndex(key)
		db.indexes[contestID] = x
	}
	return x
}

// dropIndex forgets the index of a contest: the next call that needs it reads it from the log again.
func (db *DB) dropIndex(contestID string, x *index) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.indexes[contestID] == x {
		delete(db.indexes, contestID)
	}
}

// querier is what reads segments: the writer's transaction or the readers' pool.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// contestQuery returns the key of a contest and the last position of its log; no row when it has none.
const contestQuery = `SELECT c.key, COALESCE((SELECT first_pos + count - 1 FROM segments
	WHERE contest = c.key ORDER BY first_pos DESC LIMIT 1), 0) FROM contests AS c WHERE c.id = ?`

// The parts of an index that apply and catchUp bring up to date.
const (
	logPart  = 1 << iota // objects and tokens; the caller holds mu
	listPart             // the submissions list; the caller holds listMu
)

// catchUp adds to a part of x the segments of the log after position after (where the part is), read
// through q, and to the log part the token aliases it lacks.
func (x *index) catchUp(ctx context.Context, q querier, part int, after int64) error {
	if err := x.catchUpSegments(ctx, q, part, after); err != nil {
		return err
	}
	if part != logPart {
		return nil
	}
	return x.readAliases(ctx, q)
}

// readAliases adds to the tokens the aliases of the log (see Append) that they lack. There are few: a
// feed's lines sent again under new tokens.
func (x *index) readAliases(ctx context.Context, q querier) error {
	rows, err := q.QueryContext(ctx, `SELECT token, pos, type, object_id FROM token_aliases WHERE contest = ?`, x.key)
	if err != nil {
		return err
	}
	defer closeRows(rows)
	for rows.Next() {
		var token, id string
		var pos, typ int64
		if err := rows.Scan(&token, &pos, &typ, &id); err != nil {
			return err
		}
		n := name{0, token}
		k := key(n)
		if _, found, taken := x.tokens.get(k, n); !found {
			x.tokens.add(k, n, taken, pos, ownerDigest(nameHash(name{uint8(typ), id})))
		}
	}
	return rows.Err()
}

// catchUpSegments adds to a part of x the segments of the log after position after.
func (x *index) catchUpSegments(ctx context.Context, q querier, part int, after int64) error {
	rows, err := q.QueryContext(ctx, `SELECT first_pos, count, keys FROM segments
		WHERE contest = ? AND first_pos > ? ORDER BY first_pos`, x.key, after)
	if err != nil {
		return err
	}
	defer closeRows(rows)
	for rows.Next() {
		var first int64
		var count int
		var keys sql.RawBytes
		if err := rows.Scan(&first, &count, &keys); err != nil {
			return err
		}
		checked, err := checkedKeys(keys)
		if err != nil {
			return fmt.Errorf("segment at %d: %w", first, err)
		}
		if err := x.apply(part, first, count, string(checked)); err != nil {
			return err
		}
	}
	return rows.Err()
}

// apply adds a segment's keys to a part of x: the entries from position first, which must follow the
// part's position. The submissions list keeps slices of keys.
func (x *index) apply(part int, first int64, count int, keys string) error {
	pos := &x.pos
	if part == listPart {
		pos = &x.listPos
	}
	if first != *pos+1 || count <= 0 {
		return fmt.Errorf("segment at %d after position %d: %w", first, *pos, errBadSegment)
	}
	r := newKeyReader(keys)
	var k keyRecord
	for p := first; p < first+int64(count); p++ {
		if err := r.next(&k); err != nil {
			return fmt.Errorf("position %d: %w", p, err)
		}
		if part == logPart {
			x.put(&k, p)
			continue
		}
		switch k.list {
		case listPut:
			x.subs.put(&rankd.SubmissionRecord{ID: k.subID, TeamID: k.team, ProblemID: k.problem,
				Time: time.Duration(k.ms) * time.Millisecond, Pos: p})
		case listDelete:
			x.subs.remove(k.subID)
		}
	}
	if err := r.end(); err != nil {
		return fmt.Errorf("segment at %d: %w", first, err)
	}
	*pos = first + int64(count) - 1
	return nil
}

// Submissions, judgements and the state only move forward (rankd.EventType.MovesForward): a version of one
// sent again after a later version is a repeat (a judge retrying a batch that held two versions of a
// judgement), never meant to set it back. So the tokens table also holds, by object and content, every
// version of these that a later one replaced.

// versionName is the name, in the tokens table, of a version of object id of type typ whose hash is
// packed.
func versionName(typ rankd.EventType, id, packed string) name {
	return name{tag: 0x80 | uint8(typ), text: id + "\x00" + packed}
}

// keepVersion records that object version e (of type typ and id) was replaced; it reports whether it
// added an entry to the tokens table.
func (x *index) keepVersion(typ rankd.EventType, id string, e *entry) bool {
	if !typ.MovesForward() || e.hash == (hashDigest{}) {
		return false
	}
	n := versionName(typ, id, x.objects.packed(&e.hash))
	k := key(n)
	_, found, taken := x.tokens.get(k, n)
	if found {
		return false
	}
	x.tokens.add(k, n, taken, e.pos, hashDigest{})
	return true
}

// earlierVersion returns the position of the version of object id of type typ whose hash is packed, when a
// later version replaced it.
func (x *index) earlierVersion(typ rankd.EventType, id, packed string) (int64, bool) {
	if !typ.MovesForward() {
		return 0, false
	}
	n := versionName(typ, id, packed)
	i, found, _ := x.tokens.get(key(n), n)
	if !found {
		return 0, false
	}
	return x.tokens.at(i).pos, true
}

// put records in the index's log part the entry at position p, whose keys are k.
func (x *index) put(k *keyRecord, p int64) {
	o := &x.objects
	n := name{uint8(k.typ), k.id}
	nh := nameHash(n)
	ok := keyOf(nh)
	if i, found, taken := o.get(ok, n); found {
		e := o.at(i)
		x.keepVersion(k.typ, k.id, e)
		e.pos, e.hash = p, o.makeDigest(k.hash)
	} else {
		o.add(ok, n, taken, p, o.makeDigest(k.hash))
	}
	if k.token == "" {
		return
	}
	t := &x.tokens
	n = name{0, k.token}
	tk := key(n)
	if i, found, taken := t.get(tk, n); found {
		t.at(i).pos, t.at(i).hash = p, ownerDigest(nh)
	} else {
		t.add(tk, n, taken, p, ownerDigest(nh))
	}
}

// ownerDigest is what a token's entry keeps of the object it came with: the nameHash h of its type and id
// (not the index's key, which tests mask), so that the token given again with another object is not taken
// for a repeat of its event.
func ownerDigest(h uint64) hashDigest {
	d := hashDigest{n: 8}
	binary.LittleEndian.PutUint64(d.b[:], h)
	return d
}

// readIndex returns the index of a contest, its submissions list up to date with the log as the readers
// see it; nil for a contest without a log. The caller reads the list under listMu.
func (db *DB) readIndex(ctx context.Context, contestID string) (*index, error) {
	var key, last int64
	err := db.read.QueryRowContext(ctx, contestQuery, contestID).Scan(&key, &last)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	x := db.index(contestID, key)
	x.listMu.RLock()
	behind := x.listPos < last
	x.listMu.RUnlock()
	if behind {
		x.listMu.Lock()
		defer x.listMu.Unlock()
		if x.listPos < last {
			if err := x.catchUp(ctx, db.read, listPart, x.listPos); err != nil {
				return nil, err
			}
		}
	}
	return x, nil
}

// submissionList is a contest's submissions list: every submission's latest version, in list order
// (contest time, then id bytewise), and each team's submissions in the same order.
type submissionList struct {
	byID map[string]*rankd.SubmissionRecord
	all  []*rankd.SubmissionRecord
	team map[string][]*rankd.SubmissionRecord
}

// listOrder orders the list: by contest time, then by id.
func listOrder(a, b *rankd.SubmissionRecord) int {
	return cmp.Or(cmp.Compare(a.Time, b.Time), cmp.Compare(a.ID, b.ID))
}

// put adds a submission's latest version, replacing the one before.
func (l *submissionList) put(s *rankd.SubmissionRecord) {
	l.remove(s.ID)
	l.byID[s.ID] = s
	l.all = insertSorted(l.all, s)
	l.team[s.TeamID] = insertSorted(l.team[s.TeamID], s)
}

// remove removes a submission, if the list has it.
func (l *submissionList) remove(id string) {
	s := l.byID[id]
	if s == nil {
		return
	}
	delete(l.byID, id)
	l.all = removeSorted(l.all, s)
	if t := removeSorted(l.team[s.TeamID], s); len(t) > 0 {
		l.team[s.TeamID] = t
	} else {
		delete(l.team, s.TeamID)
	}
}

// insertSorted inserts s in list, which is in list order. Submissions mostly come in time order: the
// search starts at the end.
func insertSorted(list []*rankd.SubmissionRecord, s *rankd.SubmissionRecord) []*rankd.SubmissionRecord {
	if n := len(list); n == 0 || listOrder(list[n-1], s) < 0 {
		return append(list, s)
	}
	i, _ := slices.BinarySearchFunc(list, s, listOrder)
	return slices.Insert(list, i, s)
}

// removeSorted removes s from list, which is in list order and holds it.
func removeSorted(list []*rankd.SubmissionRecord, s *rankd.SubmissionRecord) []*rankd.SubmissionRecord {
	i, found := slices.BinarySearchFunc(list, s, listOrder)
	if !found {
		return list
	}
	return slices.Delete(list, i, i+1)
}
