package rankd

import (
	"strings"
	"unicode/utf8"
)

// EventType is the kind of object an event carries.
type EventType uint8

// The event types. Values are only ever appended to, so stored numbers stay valid.
const (
	EventUnknown EventType = iota
	EventContest
	EventJudgementType
	EventProblem
	EventGroup
	EventOrganization
	EventTeam
	EventSubmission
	EventJudgement
	EventState
	EventBan
	EventAward
	// EventReveal is rankd's own: one step of the stepwise reveal after a frozen contest (see Reveal).
	EventReveal
)

// MovesForward reports whether objects of type t only move forward: a submission, a judgement and the
// contest's state never go back to an earlier version, so an earlier version sent again is a retry (see
// AppendResult.Duplicate), whereas a team, say, may well be hidden, shown and hidden again.
func (t EventType) MovesForward() bool {
	return t == EventSubmission || t == EventJudgement || t == EventState || t == EventReveal
}

var eventTypeNames = [...]string{
	EventUnknown:       "unknown",
	EventContest:       "contest",
	EventJudgementType: "judgement-types",
	EventProblem:       "problems",
	EventGroup:         "groups",
	EventOrganization:  "organizations",
	EventTeam:          "teams",
	EventSubmission:    "submissions",
	EventJudgement:     "judgements",
	EventState:         "state",
	EventBan:           "bans",
	EventAward:         "awards",
	EventReveal:        "reveal",
}

// String returns the CCS endpoint name of the type ("submissions", "judgements", ...); bans are rankd's own.
func (t EventType) String() string {
	if int(t) < len(eventTypeNames) {
		return eventTypeNames[t]
	}
	return "unknown"
}

// ParseEventType returns the type of a CCS endpoint name, or EventUnknown.
func ParseEventType(s string) EventType {
	for i, n := range eventTypeNames {
		if n == s && i != int(EventUnknown) {
			return EventType(i)
		}
	}
	return EventUnknown
}

// Event is one entry of a contest's log: a new or replaced object, or the deletion of one. Exactly the field
// matching Type is set, except for deletions, which carry only Type and ID. Events are values so that a reader
// can hand them out without allocating; the pointed-to objects belong to whoever made the event and may be
// reused after the call that received them returns.
type Event struct {
	Type EventType
	// ID is the id of the object the event carries or deletes.
	ID string
	// Delete reports that the object with ID is removed (CCS "data": null).
	Delete bool
	// Token is the CCS event token, if any (for resuming a feed).
	Token string

	Contest       *Contest
	JudgementType *JudgementType
	Problem       *Problem
	Group         *Group
	Organization  *Organization
	Team          *Team
	Submission    *Submission
	Judgement     *Judgement
	State         *State
	Ban           *Ban
	Award         *Award
	Reveal        *Reveal
}

// Clone returns ev with its own copy of the object it carries, for a holder that outlives the object's
// owner (a reader or generator that reuses its objects). Slices inside the object are shared: their owners
// never overwrite them.
func (ev Event) Clone() Event {
	switch {
	case ev.Contest != nil:
		c := *ev.Contest
		ev.Contest = &c
	case ev.JudgementType != nil:
		jt := *ev.JudgementType
		ev.JudgementType = &jt
	case ev.Problem != nil:
		p := *ev.Problem
		ev.Problem = &p
	case ev.Group != nil:
		g := *ev.Group
		ev.Group = &g
	case ev.Organization != nil:
		o := *ev.Organization
		ev.Organization = &o
	case ev.Team != nil:
		t := *ev.Team
		ev.Team = &t
	case ev.Submission != nil:
		s := *ev.Submission
		ev.Submission = &s
	case ev.Judgement != nil:
		j := *ev.Judgement
		ev.Judgement = &j
	case ev.State != nil:
		st := *ev.State
		ev.State = &st
	case ev.Ban != nil:
		b := *ev.Ban
		ev.Ban = &b
	case ev.Award != nil:
		a := *ev.Award
		ev.Award = &a
	case ev.Reveal != nil:
		r := *ev.Reveal
		ev.Reveal = &r
	}
	return ev
}

// ValidText reports whether s may be an id or a token: valid UTF-8 without a NUL byte, which every store
// keeps as text.
func ValidText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// IDRule says what ValidID takes, for error messages.
const IDRule = "1 to 36 letters, digits, _, - and ., starting with a letter, a digit or _, not ending with . " +
	"(the CCS's identifiers)"

// ValidID reports whether id is a CCS identifier (common.json of the Contest API, anchored at both ends as
// it means to be), which the id of a new contest, team, problem, group, organization or judgement type must
// be: the API's addresses, query parameters and ETags name them as they are.
func ValidID(id string) bool {
	if len(id) == 0 || len(id) > 36 || id[0] == '.' || id[0] == '-' || id[len(id)-1] == '.' {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !idByte(id[i]) {
			return false
		}
	}
	return true
}

func idByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

// CheckIDs refuses, with EINVALID, an event whose id, token or submission's ids are not ValidText.
func CheckIDs(ev *Event) error {
	ok := ValidText(ev.ID) && ValidText(ev.Token)
	if s := ev.Submission; ok && s != nil {
		ok = ValidText(s.ID) && ValidText(s.TeamID) && ValidText(s.ProblemID)
	}
	if !ok {
		return Errorf(EINVALID, "an id or token is not valid UTF-8 text, or holds a NUL byte")
	}
	return nil
}
