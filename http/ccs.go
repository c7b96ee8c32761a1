package http

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"rankd"
	"rankd/board"
	"rankd/ccs"
	"rankd/engine"
)

// The CCS-compatible endpoints (Contest API 2023-06) under /api/contests: the objects other CCS tools read.
// They follow the same views as the native API (?view=, tokens), but a judge or admin token that names
// none gets the jury view (ccsViewFor), as the event feed does.

type ccsContestJSON struct {
	ID                       string  `json:"id"`
	Name                     string  `json:"name"`
	FormalName               string  `json:"formal_name,omitempty"`
	StartTime                *string `json:"start_time"`
	Duration                 string  `json:"duration"`
	ScoreboardFreezeDuration *string `json:"scoreboard_freeze_duration,omitempty"`
	ScoreboardType           string  `json:"scoreboard_type"`
	// PenaltyTime is for pass-fail contests only: the 2023-06 schema refuses it in a score contest.
	PenaltyTime *int64 `json:"penalty_time,omitempty"`
	// Rankd holds rankd's extensions (docs/ccs.md), so that the object is the whole definition: what a
	// client sends back in a PATCH to change one field keeps the others.
	Rankd contestExtJSON `json:"rankd"`
}

// contestExtJSON is the contest's "rankd" member. Rules is always there; the other members only where they
// differ from their defaults, as the event feed writes them.
type contestExtJSON struct {
	Rules        string       `json:"rules"`
	OIMode       string       `json:"oi_mode,omitempty"`
	HideUntilEnd bool         `json:"hide_until_end,omitempty"`
	TieByTime    bool         `json:"tie_by_time,omitempty"`
	FirstBlood   []int64      `json:"first_blood,omitempty"`
	Medals       *rankdMedals `json:"medals,omitempty"`
}

type rankdMedals struct {
	Gold   int `json:"gold"`
	Silver int `json:"silver"`
	Bronze int `json:"bronze"`
}

// contestExtOf returns the "rankd" member of contest c.
func contestExtOf(c *rankd.Contest) contestExtJSON {
	ext := contestExtJSON{Rules: c.Rules.String(), HideUntilEnd: c.HideUntilEnd, TieByTime: c.TieByTime,
		FirstBlood: c.FirstBlood}
	if c.OIMode == rankd.OILast {
		ext.OIMode = "last"
	}
	if m := c.Medals; m != (rankd.Medals{}) {
		ext.Medals = &rankdMedals{Gold: m.Gold, Silver: m.Silver, Bronze: m.Bronze}
	}
	return ext
}

func ccsContestOf(c rankd.Contest) ccsContestJSON {
	cj := ccsContestJSON{ID: c.ID, Name: c.Name, FormalName: c.FormalName, Duration: ccs.FormatRelTime(c.Duration),
		ScoreboardType: "pass-fail", Rankd: contestExtOf(&c)}
	if c.Rules == rankd.ICPC {
		pt := int64(c.PenaltyTime / time.Minute)
		cj.PenaltyTime = &pt
	} else {
		cj.ScoreboardType = "score"
	}
	if !c.Start.IsZero() {
		st := ccs.FormatTime(c.Start)
		cj.StartTime = &st
	}
	if c.FreezeDuration > 0 {
		fd := ccs.FormatRelTime(c.FreezeDuration)
		cj.ScoreboardFreezeDuration = &fd
	}
	return cj
}

// ccsInformation says which version of the Contest API rankd serves: tools (a CDS, the resolver) ask it first.
func (s *Server) ccsInformation(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, map[string]any{
		"version":     "2023-06",
		"version_url": "https://ccs-specs.icpc.io/2023-06/contest_api",
		"provider":    map[string]string{"name": "rankd"},
	})
}

func (s *Server) ccsContests(w http.ResponseWriter, r *http.Request) error {
	out := []ccsContestJSON{}
	for _, id := range s.Engine.ContestIDs() {
		// What anyone may know, without waiting for a commit in progress (see cached).
		if p, ok := s.Engine.Public(id); ok {
			out = append(out, ccsContestOf(p.Contest))
			continue
		}
		err := s.Engine.ReadPublic(id, func(b *board.Board, _ int64) error {
			out = append(out, ccsContestOf(b.Contest()))
			return nil
		})
		if err != nil && rankd.ErrorCode(err) != rankd.ENOTFOUND {
			return err
		}
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) ccsContest(w http.ResponseWriter, r *http.Request) error {
	p, err := s.public(r.PathValue("cid"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, ccsContestOf(p.Contest))
}

// public returns what anyone may know of a contest now, without waiting for a commit in progress.
func (s *Server) public(contestID string) (engine.Public, error) {
	if p, ok := s.Engine.Public(contestID); ok {
		return p, nil
	}
	return engine.Public{}, rankd.Errorf(rankd.ENOTFOUND, "no contest %q", contestID)
}

// stateNow returns the contest's state as the clock makes it: the steps its times passed, plus those
// recorded (a freeze or thaw by hand, a finalization).
func stateNow(c *rankd.Contest, st rankd.State, now time.Time) rankd.State {
	start := rankd.StartOf(c, st)
	if start.IsZero() || now.Before(start) {
		return st
	}
	at := func(d time.Duration) *time.Time {
		t := start.Add(d)
		return &t
	}
	if st.Started == nil {
		st.Started = at(0)
	}
	switch ft := rankd.FreezeOf(c, st); {
	case st.Frozen != nil:
	case c.HidesUntilEnd():
		// Its public board hides every verdict from the start until the end is recorded, and shows them all
		// from then: frozen at the start, thawed at the end (frozen that went null said it never froze).
		switch {
		case publicHides(c, st, now):
			st.Frozen = at(0)
		case st.Ended != nil:
			st.Frozen = at(0)
			if st.Thawed == nil {
				st.Thawed = st.Ended
			}
		}
	case ft < c.Duration && now.Sub(start) >= ft:
		st.Frozen = at(ft)
	}
	if st.Ended == nil && now.Sub(start) >= c.Duration {
		st.Ended = at(c.Duration)
	}
	return st
}

func (s *Server) ccsState(w http.ResponseWriter, r *http.Request) error {
	p, err := s.public(r.PathValue("cid"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, ccs.StateJSON(stateNow(&p.Contest, p.State, s.Now())))
}

func (s *Server) ccsScoreboard(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	v, err := s.ccsViewFor(r, cid)
	if err != nil {
		return err
	}
	return s.writeCCSScoreboard(w, r, cid, v, param(r, "group_id"))
}

// writeCCSScoreboard writes the CCS scoreboard object of view v; given a group, of its teams, ranked among
// themselves.
func (s *Server) writeCCSScoreboard(w http.ResponseWriter, r *http.Request, cid string, v rankd.View, group string) error {
	// The rows follow the view's version and come from the cache; the time and the state are the clock's.
	r.Header.Del("If-None-Match") // the whole object changes with the clock: there is no version to match
	rows, _, err := s.cached(r, cid, v, "ccs-rows|"+group, func(b *board.Board) (any, error) {
		st, err := pageOf(b, v, group, 0, -1)
		if err != nil {
			return nil, err
		}
		c := b.Contest()
		return ccs.Scoreboard(&c, b.Problems(), st, b.State(), time.Time{}).Rows, nil
	})
	if err != nil {
		return err
	}
	p, err := s.public(cid)
	if err != nil {
		return err
	}
	now := s.Now()
	head := ccs.Scoreboard(&p.Contest, nil, rankd.Standings{}, stateNow(&p.Contest, p.State, now), now)
	// The cached rows go out as they are, after the head: encoded into each answer (megabytes for a big
	// board), they made a copy per request, held as long as its client did not read it.
	prefix, err := json.Marshal(struct {
		Time        string          `json:"time"`
		ContestTime string          `json:"contest_time"`
		State       ccs.StateObject `json:"state"`
	}{head.Time, head.ContestTime, head.State})
	if err != nil {
		return err
	}
	prefix = append(prefix[:len(prefix)-1], `,"rows":`...)
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h.Set("Content-Length", strconv.Itoa(len(prefix)+len(rows.body)+2))
	w.WriteHeader(http.StatusOK)
	for _, part := range [][]byte{prefix, rows.body, []byte("}\n")} {
		if _, err := w.Write(part); err != nil {
			return nil // the client gone: nothing more can be said to it
		}
	}
	return nil
}

func (s *Server) ccsAwards(w http.ResponseWriter, r *http.Request) error {
	return s.writeAwards(w, r, s.ccsViewFor)
}

type ccsTeamJSON struct {
	ID             string   `json:"id"`
	Label          string   `json:"label"`
	Name           string   `json:"name"`
	DisplayName    string   `json:"display_name,omitempty"`
	OrganizationID string   `json:"organization_id,omitempty"`
	GroupIDs       []string `json:"group_ids"`
	Hidden         bool     `json:"hidden,omitempty"`
}

// ccsTeamObjects returns the CCS objects of the teams view v lists; given only, of the team with that id
// alone.
func ccsTeamObjects(b *board.Board, v rankd.View, only string) []ccsTeamJSON {
	out := []ccsTeamJSON{}
	for _, t := range listedTeams(b, v, only) {
		label := t.Label
		if label == "" {
			label = t.ID
		}
		groups := t.GroupIDs
		if groups == nil {
			groups = []string{}
		}
		out = append(out, ccsTeamJSON{ID: t.ID, Label: label, Name: t.Name, DisplayName: t.DisplayName,
			OrganizationID: t.OrganizationID, GroupIDs: groups, Hidden: t.Hidden})
	}
	return out
}

// ccsTeams lists the teams, rendered once per version of the view: a collection of 10,000 teams is a
// megabyte of JSON, which a CDS or resolver may ask for again and again.
func (s *Server) ccsTeams(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	v, err := s.ccsViewFor(r, cid)
	if err != nil {
		return err
	}
	return s.cachedRead(w, r, cid, v, "ccs-teams", func(b *board.Board) (any, error) {
		return ccsTeamObjects(b, v, ""), nil
	})
}

type ccsProblemJSON struct {
	ID            string          `json:"id"`
	Label         string          `json:"label"`
	Name          string          `json:"name"`
	Ordinal       int             `json:"ordinal"`
	RGB           string          `json:"rgb,omitempty"`
	Color         string          `json:"color,omitempty"`
	MaxScore      *float64        `json:"max_score,omitempty"`
	TestDataCount int             `json:"test_data_count"`
	Rankd         *problemExtJSON `json:"rankd,omitempty"`
}

// problemExtJSON is a problem's "rankd" member: its CTF value and how it follows the solves, its IOI
// subtasks. They describe the problem, not results, and the public event feed sends them too.
type problemExtJSON struct {
	Value    int64     `json:"value,omitempty"`
	Minimum  int64     `json:"minimum,omitempty"`
	Decay    int64     `json:"decay,omitempty"`
	Function string    `json:"function,omitempty"`
	Subtasks []float64 `json:"subtasks,omitempty"`
}

func ccsProblemOf(p rankd.Problem) ccsProblemJSON {
	pj := ccsProblemJSON{ID: p.ID, Label: p.Label, Name: p.Name, Ordinal: p.Ordinal, RGB: p.RGB, Color: p.Color,
		TestDataCount: p.TestDataCount}
	if pj.Label == "" {
		pj.Label = p.ID
	}
	if p.MaxScore > 0 {
		ms := p.MaxScore
		pj.MaxScore = &ms
	}
	ext := problemExtJSON{Value: p.Value, Minimum: p.Minimum, Decay: p.Decay, Subtasks: p.Subtasks}
	if p.Function != rankd.ValueStatic {
		ext.Function = p.Function.String()
	}
	if ext.Value != 0 || ext.Minimum != 0 || ext.Decay != 0 || ext.Function != "" || len(ext.Subtasks) > 0 {
		pj.Rankd = &ext
	}
	return pj
}

func (s *Server) ccsProblems(w http.ResponseWriter, r *http.Request) error {
	return s.writeRead(w, r.PathValue("cid"), rankd.PublicView, func(b *board.Board) any {
		out := []ccsProblemJSON{}
		for _, p := range b.Problems() {
			out = append(out, ccsProblemOf(p))
		}
		return out
	})
}

type ccsJudgementTypeJSON struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Penalty bool   `json:"penalty"`
	Solved  bool   `json:"solved"`
}

// ccsJudgementTypes lists the verdicts of a contest, in the order they were defined. They are public: the
// event feed sends them to everyone, and they say nothing of any submission.
func (s *Server) ccsJudgementTypes(w http.ResponseWriter, r *http.Request) error {
	return s.writeRead(w, r.PathValue("cid"), rankd.PublicView, func(b *board.Board) any {
		out := []ccsJudgementTypeJSON{}
		for _, jt := range b.JudgementTypes() {
			out = append(out, ccsJudgementTypeJSON{ID: jt.ID, Name: jt.Name, Penalty: jt.Penalty, Solved: jt.Solved})
		}
		return out
	})
}

func (s *Server) ccsGroups(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	v, err := s.ccsViewFor(r, cid)
	if err != nil {
		return err
	}
	return s.writeRead(w, cid, v, func(b *board.Board) any {
		out := []groupJSON{}
		for _, g := range b.Groups() {
			if !g.Hidden || v.Kind == rankd.ViewJury {
				out = append(out, groupJSON{ID: g.ID, Name: g.Name, Hidden: g.Hidden})
			}
		}
		return out
	})
}

type ccsOrganizationJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	FormalName string `json:"formal_name,omitempty"`
	Country    string `json:"country,omitempty"`
}

func ccsOrganizationOf(o rankd.Organization) ccsOrganizationJSON {
	return ccsOrganizationJSON{ID: o.ID, Name: o.Name, FormalName: o.FormalName, Country: o.Country}
}

// ccsOrganizationObjects returns the CCS objects of the organizations of the teams view v lists: one that
// only hidden teams belong to is not the public's to know of. Given only, of the organization with that id
// alone.
func ccsOrganizationObjects(b *board.Board, v rankd.View, only string) []ccsOrganizationJSON {
	out := []ccsOrganizationJSON{}
	if v.Kind == rankd.ViewJury {
		// The jury sees every organization, one without teams (yet) too.
		for _, o := range b.Organizations() {
			if only == "" || o.ID == only {
				out = append(out, ccsOrganizationOf(o))
			}
		}
		return out
	}
	if only != "" {
		// Its teams alone are looked at: the view lists it when it lists one of them.
		o, ok := b.Organization(only)
		if !ok {
			return out
		}
		for _, t := range b.Teams() {
			if t.OrganizationID == only && len(listedTeams(b, v, t.ID)) > 0 {
				return append(out, ccsOrganizationOf(o))
			}
		}
		return out
	}
	seen := map[string]bool{}
	for _, t := range listedTeams(b, v, "") {
		if t.OrganizationID == "" || seen[t.OrganizationID] {
			continue
		}
		seen[t.OrganizationID] = true
		if o, ok := b.Organization(t.OrganizationID); ok {
			out = append(out, ccsOrganizationOf(o))
		}
	}
	return out
}

// ccsOrganizations lists the organizations, rendered once per version of the view (an organization's
// change changes its teams' rows, and with them the view's version); the jury's every time, since it lists
// organizations without teams, whose changes move no row.
func (s *Server) ccsOrganizations(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	v, err := s.ccsViewFor(r, cid) // as the teams': a display mirroring the public board asks for view=public
	if err != nil {
		return err
	}
	if v.Kind == rankd.ViewJury {
		return s.writeRead(w, cid, v, func(b *board.Board) any { return ccsOrganizationObjects(b, v, "") })
	}
	return s.cachedRead(w, r, cid, v, "ccs-organizations", func(b *board.Board) (any, error) {
		return ccsOrganizationObjects(b, v, ""), nil
	})
}

// ccsObject serves one object of a big CCS collection (teams, organizations), which objects finds without
// rendering the others: 404 when the view does not list it.
func ccsObject[T any](s *Server, w http.ResponseWriter, r *http.Request, what string,
	objects func(b *board.Board, v rankd.View, only string) []T) error {
	cid, oid := r.PathValue("cid"), r.PathValue("oid")
	v, err := s.ccsViewFor(r, cid)
	if err != nil {
		return err
	}
	var found []T
	if err := s.readBoard(cid, v, func(b *board.Board, _ int64) error {
		found = objects(b, v, oid)
		return nil
	}); err != nil {
		return err
	}
	if len(found) == 0 {
		return rankd.Errorf(rankd.ENOTFOUND, "contest %s has no %s %q", cid, what, oid)
	}
	w.Header()["Cache-Control"] = cacheControl(v)
	return writeJSON(w, http.StatusOK, found[0])
}

// ccsOne serves one object of a CCS collection: the element of list's answer (as the request's view and
// token see it) whose id is the path's {oid}; 404 when it has none, as for an object hidden from the view.
func (s *Server) ccsOne(list handlerFunc, what string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		// The collection whole and plain: not compressed, and not 304 for the collection's ETag. (A shallow copy
		// keeps the path's values.)
		whole := r.WithContext(r.Context())
		whole.Header = r.Header.Clone()
		whole.Header.Del("Accept-Encoding")
		whole.Header.Del("If-None-Match")
		rec := &recorder{header: http.Header{}}
		if err := list(rec, whole); err != nil {
			return err
		}
		var items []json.RawMessage
		if err := json.Unmarshal(rec.body.Bytes(), &items); err != nil {
			return fmt.Errorf("%s of contest %s: %w", what, r.PathValue("cid"), err)
		}
		oid := r.PathValue("oid")
		for _, it := range items {
			var head struct{ ID string }
			if json.Unmarshal(it, &head) == nil && head.ID == oid {
				if cc := rec.header.Get("Cache-Control"); cc != "" {
					w.Header().Set("Cache-Control", cc)
				}
				return writeJSON(w, http.StatusOK, it)
			}
		}
		return rankd.Errorf(rankd.ENOTFOUND, "contest %s has no %s %q", r.PathValue("cid"), what, oid)
	}
}

// recorder keeps an answer in memory.
type recorder struct {
	header http.Header
	body   bytes.Buffer
}

func (rc *recorder) Header() http.Header         { return rc.header }
func (rc *recorder) Write(b []byte) (int, error) { return rc.body.Write(b) }
func (rc *recorder) WriteHeader(int)             {}
