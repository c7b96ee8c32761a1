package rankd

import "time"

// ViewKind says who looks at a board.
type ViewKind uint8

const (
	// ViewPublic is what everyone sees: during the freeze, submissions at or after the freeze are pending.
	ViewPublic ViewKind = iota
	// ViewJury is the live board with every verdict.
	ViewJury
	// ViewTeam is the public board plus one team's own verdicts.
	ViewTeam
)

var viewNames = [...]string{ViewPublic: "public", ViewJury: "jury", ViewTeam: "team"}

// String returns "public", "jury" or "team".
func (k ViewKind) String() string {
	if int(k) < len(viewNames) {
		return viewNames[k]
	}
	return "unknown"
}

// View selects a board: public, jury, or the team view of TeamID.
type View struct {
	Kind   ViewKind
	TeamID string
}

// The views that need no team.
var (
	PublicView = View{Kind: ViewPublic}
	JuryView   = View{Kind: ViewJury}
)

// TeamView returns the view of the team with the id.
func TeamView(teamID string) View { return View{Kind: ViewTeam, TeamID: teamID} }

// ParseView parses "public", "jury" or "team:<id>".
func ParseView(s string) (View, error) {
	switch {
	case s == "public" || s == "":
		return PublicView, nil
	case s == "jury":
		return JuryView, nil
	case len(s) > 5 && s[:5] == "team:":
		return TeamView(s[5:]), nil
	}
	return View{}, Errorf(EINVALID, "unknown view %q (want public, jury or team:<id>)", s)
}

// String returns the view as ParseView reads it.
func (v View) String() string {
	if v.Kind == ViewTeam {
		return "team:" + v.TeamID
	}
	return v.Kind.String()
}

// Cell is one team's result on one problem.
type Cell struct {
	ProblemID string
	// Solved reports an accepted submission (ICPC, CTF) or a positive score (OI, IOI).
	Solved bool
	// FirstToSolve marks the earliest solve of the problem in this view.
	FirstToSolve bool
	// Judged counts the judged submissions up to and including the first accepted one (ICPC, CTF), or all
	// judged ones (OI, IOI). Submissions whose verdict costs no penalty and solves nothing (compile errors)
	// do not count.
	Judged int
	// Pending counts the submissions without a verdict in this view (frozen ones included).
	Pending int
	// Time is when the cell was solved (ICPC: the accepted submission) or its score was reached (OI, CTF).
	Time time.Duration
	// Penalty is the ICPC penalty of a solved cell in minutes: the solve minute plus penalty for rejections.
	Penalty int64
	// Score is the points of the cell: OI, IOI score or CTF value (with first-blood bonus).
	Score float64
}

// Row is one team's line on a board.
type Row struct {
	// Rank is shared by rows that compare equal; 0 for a team that is not ranked (hidden, banned).
	Rank   int
	TeamID string
	// Solved counts solved cells.
	Solved int
	// Penalty is the ICPC total time in minutes.
	Penalty int64
	// Score is the OI, IOI or CTF total.
	Score float64
	// Time is the ICPC time of the last accepted cell, or when the OI or CTF total was reached.
	Time  time.Duration
	Cells []Cell
}

// Standings is a page of a board.
type Standings struct {
	ContestID string
	View      View
	// Seq is the sequence number of the view the page was read at.
	Seq uint64
	// Total is the number of ranked rows in the view (or in the group).
	Total int
	// Offset is the position of the first row of the page.
	Offset int
	Rows   []Row
}
