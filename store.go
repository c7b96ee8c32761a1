package rankd

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// LogEntry is one event as a contest's log holds it.
type LogEntry struct {
	// Pos is the entry's position in its contest's log: 1, 2, 3, ... without gaps. Append assigns it (and
	// ignores the value it is given).
	Pos int64
	// Event is the decoded event. Append reads it to keep the store's own tables (submissions); Replay leaves it
	// zero: the log's truth is Data.
	Event Event
	// Data is the event encoded as one CCS event-feed line (package ccs), without its token.
	Data []byte
	// Hash identifies the content of Data (a digest the caller computes). An entry without one is never a
	// duplicate by content.
	Hash string
	// Token is the sender's id of this event, when it gave one (a CCS event token); unique per contest.
	Token string
	// Deletion is the Hash of the deletion of the entry's object, set on an entry with a Token: an entry that
	// moves its object between deleted and live (the latest version is that deletion and the entry is not, or
	// the reverse) is stored though it repeats an earlier version, as a feed sends again what it deleted
	// (rankd's public feed, for a team hidden and shown again) or deletes it again.
	Deletion string
	// Own marks an event the server made itself, now (an admin's freeze or thaw, a contest reopened, the end
	// it records): a decision, not a sender's retry, so that it repeats an earlier version on purpose (a thaw
	// sets the state back as an earlier thaw left it, after a freeze since). Only a repeat of the latest version
	// is a duplicate of it.
	Own bool
	// Stored is when the entry was stored, by the store's clock; Append ignores the value it is given.
	Stored time.Time
	// DropTakenToken has an entry whose Token the log gives another object taken as one without a token
	// (stored, or a duplicate, by its content; AppendResult.TokenDropped says so), instead of refused: what
	// a sender asks for that reads again a feed whose events were numbered anew (a contest system's
	// database reloaded). Append clears its Token then.
	DropTakenToken bool
}

// AppendResult is what Append did with one entry.
type AppendResult struct {
	// Pos is the entry's position in the log: the new one, or for a duplicate the one stored before; 0 for a
	// refused entry.
	Pos int64
	// Duplicate reports that the entry was already in the log: its token was, with the same object (Event.Type
	// and Event.ID), or the latest version of its object has the same Hash, or, for an object that only moves
	// forward (see EventType.MovesForward), any earlier version has, unless the entry deletes or re-creates its
	// object (see LogEntry.Deletion) or is the server's own (LogEntry.Own). Nothing was stored.
	Duplicate bool
	// Err is why the entry was refused (the accept function's error, or TokenTaken); nothing was stored.
	Err error
	// TokenDropped says that the entry's token names another object in the log, and that the entry, which
	// asked for it (LogEntry.DropTakenToken), was taken as one without a token.
	TokenDropped bool
}

// ErrTokenTaken is the cause of the error of an entry whose token the log gives another object.
var ErrTokenTaken = errors.New("token taken")

// TokenTaken is the result error of an entry whose token the log already gives another object: a token names
// one event, so this is not a repeat of it (a source that numbers its tokens anew, two sources in one
// contest), and taking it for one would lose the event without a word.
func TokenTaken(e *LogEntry) error {
	return &Error{Code: ECONFLICT, Err: ErrTokenTaken, Message: fmt.Sprintf(
		"%s %q: its token %q names another event of the log: give it a token of its own, or none",
		e.Event.Type, e.Event.ID, e.Token)}
}

// EventLog is the durable, append-only log of every contest's events: the truth the boards are built from.
type EventLog interface {
	// Append stores the entries of one contest, in order, atomically and durably: when it returns without
	// error every entry not reported duplicate or refused is on disk, and none is when it returns an error.
	// Append calls accept, in order, for each entry that is not a duplicate (of the log, or of an earlier
	// entry of the same call), before storing it; an entry accept refuses is not stored and later entries
	// do not see it; a nil accept accepts every entry. When Append returns an error (a cancelled ctx too),
	// nothing of the call is stored, not even entries accept approved: the caller undoes what accept did.
	// When ctx carries a function of WithDecided, Append calls it once every entry is decided.
	// Append is safe for concurrent use; calls for one contest are serialized. An empty contestID: EINVALID.
	Append(ctx context.Context, contestID string, entries []LogEntry, accept func(i int) error) ([]AppendResult, error)
	// Replay calls fn with every entry of a contest whose Pos is after pos, in order; an unknown contest has
	// none. It stops at fn's first error and returns it.
	Replay(ctx context.Context, contestID string, after int64, fn func(*LogEntry) error) error
	// Contests returns the ids of the contests that have a log (at least one stored entry), in bytewise id
	// order.
	Contests(ctx context.Context) ([]string, error)
	// Began returns when a contest's log began: the Stored time of its first entry; the zero time for a
	// contest without a log.
	Began(ctx context.Context, contestID string) (time.Time, error)
}

// ContestDeleter deletes contests: what an organiser does with a test contest, or the demo, once done.
type ContestDeleter interface {
	// DeleteContest removes a contest and everything stored of it, atomically: its log (and the tokens of
	// its events), its checkpoints, its submissions list, the tokens issued for its teams, and its final
	// standings. An unknown contest (no log, no checkpoint, no final standings): ENOTFOUND. The id is free
	// again: a later Append starts a new log at position 1. A concurrent Append of the contest runs before
	// or after it, never across it.
	DeleteContest(ctx context.Context, contestID string) error
}

// ErrContestDeleted is the cause of the error (ENOTFOUND) of a shared log's append from a server whose board
// is further on than the contest's log: the contest was deleted (on another server) since the board read it.
var ErrContestDeleted = errors.New("contest deleted")

// WithDecided returns a copy of ctx that tells an EventLog's Append to call decided once it has decided
// about every entry (accept was called for each it stores), before it makes any durable. The caller may
// then let in readers that need not wait for the disk (see engine.Engine.ReadPublic). A store that does not
// call it only keeps them waiting until Append returns, as net/http/httptrace's hooks are only observed.
func WithDecided(ctx context.Context, decided func()) context.Context {
	return context.WithValue(ctx, decidedKey{}, decided)
}

type decidedKey struct{}

// Decided calls the function WithDecided put in ctx, if any: an EventLog's Append calls it once every
// entry is decided, before storing them durably.
func Decided(ctx context.Context) {
	if f, ok := ctx.Value(decidedKey{}).(func()); ok {
		f()
	}
}

// WithLogKey returns a copy of ctx that has a shared log's Append check which log of the contest it appends
// to, and say so: *key is the key of the log the caller's board was built from (0: none yet); an append to
// another log of the contest's id (the contest deleted, and created again, since the board read it) fails
// with ErrContestDeleted; one that succeeds sets *key to its log's key. Its Replay checks the entries it
// reads the same way, and sets *key once it reads one.
func WithLogKey(ctx context.Context, key *int64) context.Context {
	return context.WithValue(ctx, logKeyKey{}, key)
}

type logKeyKey struct{}

// LogKeyOf returns the key WithLogKey put in ctx; nil when none.
func LogKeyOf(ctx context.Context) *int64 {
	k, _ := ctx.Value(logKeyKey{}).(*int64)
	return k
}

// Checkpoint is a board's state at a log position.
type Checkpoint struct {
	Pos  int64
	Data []byte
	// Saved is when it was stored, by the store's clock (the clock of the log's Stored times); LatestCheckpoint
	// sets it, SaveCheckpoint ignores it.
	Saved time.Time
}

// CheckpointStore keeps the latest board checkpoint of each contest, so that start-up replays only the
// log's tail.
type CheckpointStore interface {
	// SaveCheckpoint stores cp as the contest's latest checkpoint, unless the one stored is at a later
	// position (servers sharing a log save theirs in any order); older ones may be dropped. A negative Pos
	// or an empty contestID: EINVALID.
	SaveCheckpoint(ctx context.Context, contestID string, cp Checkpoint) error
	// LatestCheckpoint returns the contest's latest checkpoint; an error with code ENOTFOUND when there is none.
	LatestCheckpoint(ctx context.Context, contestID string) (Checkpoint, error)
}

// SubmissionRecord is a submission as the submissions list shows it; the verdict comes from the board,
// which knows what each view may see.
type SubmissionRecord struct {
	ID        string
	TeamID    string
	ProblemID string
	Time      time.Duration // contest time, to the millisecond (the precision of the event feed)
	Pos       int64         // log position of the submission's latest version
}

// SubmissionFilter selects a page of a contest's submissions, ordered by contest time then id (bytewise, so
// that every store pages alike).
type SubmissionFilter struct {
	TeamID    string // "" for every team
	ProblemID string // "" for every problem
	Offset    int    // < 0: EINVALID
	Limit     int    // <= 0: no limit
}

// SubmissionStore lists the submissions of a contest, as the log defines them (later versions replace
// earlier ones, deletions remove them).
type SubmissionStore interface {
	Submissions(ctx context.Context, contestID string, f SubmissionFilter) ([]SubmissionRecord, error)
}

// Role is what a token lets its holder do.
type Role string

// The roles, from most to least powerful. A team token is bound to one team of one contest.
const (
	RoleAdmin  Role = "admin"
	RoleJudge  Role = "judge"
	RoleTeam   Role = "team"
	RolePublic Role = "public"
)

// Token is an access token and what it grants. Stores keep only a digest of Secret.
type Token struct {
	Secret    string // the bearer token itself; empty when read back from a store
	Role      Role
	ContestID string // team tokens: the contest; "" otherwise
	TeamID    string // team tokens: the team
	Name      string // a label for operators
}

// Jury reports whether the token sees the jury's view: an admin's or a judge's.
func (t Token) Jury() bool { return t.Role == RoleAdmin || t.Role == RoleJudge }

// Validate checks what every token must hold: a secret, a known role, and for a team token its contest and
// team.
func (t Token) Validate() error {
	if t.Secret == "" {
		return Errorf(EINVALID, "token has no secret")
	}
	switch t.Role {
	case RoleAdmin, RoleJudge, RolePublic:
	case RoleTeam:
		if t.ContestID == "" || t.TeamID == "" {
			return Errorf(EINVALID, "a team token needs its contest and team")
		}
	default:
		return Errorf(EINVALID, "unknown role %q (want admin, judge, team or public)", t.Role)
	}
	return nil
}

// TokenStore keeps tokens issued through the API (the configuration file and the environment give others).
type TokenStore interface {
	// SaveToken stores a token, replacing one with the same secret. A token without a secret, with an
	// unknown role, or a team token without its contest and team: EINVALID.
	SaveToken(ctx context.Context, t Token) error
	// LookupToken returns the token with this secret; an error with code ENOTFOUND when there is none.
	LookupToken(ctx context.Context, secret string) (Token, error)
	// DeleteTeamTokens removes every team token of a team of a contest and returns how many it removed
	// (a leaked token is revoked so; the team then gets a new one).
	DeleteTeamTokens(ctx context.Context, contestID, teamID string) (int, error)
}

// FinalStandings is one version of a contest's final standings: the boards built from its whole log at a
// position, as a finalization stored them.
type FinalStandings struct {
	ContestID string
	// Version numbers the builds of a contest's final standings from 1; SaveFinal assigns it.
	Version int64
	// Pos is the log position the standings were built from: the log's end then.
	Pos int64
	// Stored is when the log's entry at Pos was stored (its LogEntry.Stored): with Pos it names the log the
	// standings were built from, of the contests the id has had. SaveFinal checks it; ActiveFinal leaves it
	// zero.
	Stored time.Time
	// Built is when the version was stored, by the store's clock; SaveFinal assigns it.
	Built time.Time
	// Jury and Public are the rows of each view in board order, with their ranks (after a thaw the two
	// are alike).
	Jury, Public []Row
	// Awards are the public view's; JuryAwards the jury view's (which differ until a thaw: a medal goes by the
	// jury's standings), nil in versions stored before they were kept.
	Awards, JuryAwards []Award
}

// FinalOfAnotherLog is SaveFinal's error for standings of another log than the contest's.
func FinalOfAnotherLog(f FinalStandings) error {
	return &Error{Code: ENOTFOUND, Err: ErrContestDeleted, Message: fmt.Sprintf(
		"contest %q was deleted since its final standings were built at log position %d", f.ContestID, f.Pos)}
}

// FinalVersionsKept is how many versions of a contest's final standings a store keeps: the active one and
// those just before it (a version of 10,000 teams is megabytes, and events after a contest's end, a rejudge
// after another, each make one).
const FinalVersionsKept = 5

// FinalStore keeps the final standings of contests: the last FinalVersionsKept versions built, and which one
// is active.
type FinalStore interface {
	// SaveFinal stores f as a new version of its contest's final standings and makes it the active one,
	// deleting the versions FinalVersionsKept before it, in one transaction, unless the active version was built from the same or a later log position: then
	// nothing is stored and that version is returned. So a finalization that runs twice, or on two servers
	// at once, gives one result. It returns the active version's number. Standings of another log than the
	// contest's (its log has no entry at f.Pos stored at f.Stored: the contest was deleted, perhaps created
	// again, since they were built) are not stored: ENOTFOUND.
	SaveFinal(ctx context.Context, f FinalStandings) (version int64, err error)
	// ActiveFinal returns a contest's active final standings; an error with code ENOTFOUND when it has none.
	ActiveFinal(ctx context.Context, contestID string) (FinalStandings, error)
}
