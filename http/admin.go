package http

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"rankd"
	"rankd/board"
	"rankd/ccs"
	"rankd/engine"
)

// contestBundle defines or updates a contest and its objects at once, each a CCS object (rankd's extensions
// included; see docs/ccs.md). Objects are applied in this order; a contest without judgement types gets the
// default ones.
type contestBundle struct {
	Contest        json.RawMessage   `json:"contest"`
	JudgementTypes []json.RawMessage `json:"judgement-types"`
	Groups         []json.RawMessage `json:"groups"`
	Organizations  []json.RawMessage `json:"organizations"`
	Problems       []json.RawMessage `json:"problems"`
	Teams          []json.RawMessage `json:"teams"`
}

// lines returns the bundle as feed lines, each object on one line however the request laid it out.
func (cb *contestBundle) lines() [][]byte {
	var lines [][]byte
	add := func(t rankd.EventType, objs ...json.RawMessage) {
		for _, o := range objs {
			var l bytes.Buffer
			l.WriteString(`{"type":"`)
			l.WriteString(t.String())
			l.WriteString(`","data":`)
			_ = json.Compact(&l, o) // o is valid JSON: the bundle decoded
			l.WriteByte('}')
			lines = append(lines, l.Bytes())
		}
	}
	if len(cb.Contest) > 0 {
		add(rankd.EventContest, cb.Contest)
	}
	add(rankd.EventJudgementType, cb.JudgementTypes...)
	add(rankd.EventGroup, cb.Groups...)
	add(rankd.EventOrganization, cb.Organizations...)
	add(rankd.EventProblem, cb.Problems...)
	add(rankd.EventTeam, cb.Teams...)
	return lines
}

func (s *Server) readBundle(w http.ResponseWriter, r *http.Request) (contestBundle, error) {
	var cb contestBundle
	body, _, err := requestBody(w, r, s.maxBody())
	if err != nil {
		return cb, err
	}
	// A byte order mark, which some editors and Windows tools write at the start of a file, as on ingest.
	br := bufio.NewReader(body)
	if mark, _ := br.Peek(len(utf8BOM)); bytes.Equal(mark, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM))
	}
	dec := json.NewDecoder(br)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cb); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return cb, tooLarge(mbe.Limit, 0)
		}
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			want := "a list of objects"
			if ute.Field == "contest" || ute.Field == "" {
				want = "an object"
			}
			return cb, rankd.Errorf(rankd.EINVALID, "the body is not a contest bundle: %q must be %s, not a JSON %s", cmp.Or(ute.Field, "the body"), want, ute.Value)
		}
		return cb, rankd.Errorf(rankd.EINVALID, "the body is not a contest bundle: %s", decodeProblem(err))
	}
	if err := oneValue(dec); err != nil {
		return cb, err
	}
	return cb, nil
}

// decodeProblem says what is wrong with the JSON a json.Decoder refused with err, in the user's terms: where
// it is malformed, which member has the wrong kind of value (not which Go type it would not fit).
func decodeProblem(err error) string {
	var syntax *json.SyntaxError
	var ute *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("malformed JSON at byte %d: %s", syntax.Offset, syntax.Error())
	case errors.As(err, &ute):
		typ, want := ute.Type, "a number"
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		switch typ.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			want = "a whole number"
		case reflect.String:
			want = "a string"
		case reflect.Bool:
			want = "true or false"
		case reflect.Slice, reflect.Array:
			want = "an array"
		case reflect.Struct, reflect.Map:
			want = "an object"
		}
		return fmt.Sprintf("%s must be %s, not a JSON %s", cmp.Or(ute.Field, "the value"), want, ute.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends before its value does"
	}
	return strings.TrimPrefix(err.Error(), "json: ") // an unknown member: `unknown field "x"`
}

// oneValue refuses what follows the JSON value dec decoded (a second one pasted in): it would be dropped
// without a word.
func oneValue(dec *json.Decoder) error {
	if _, err := dec.Token(); err != io.EOF {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return rankd.Errorf(rankd.EINVALID, "the body holds more than one JSON value")
	}
	return nil
}

// createContest defines a new contest from a bundle; its teams are on the board, with nothing, at once.
func (s *Server) createContest(w http.ResponseWriter, r *http.Request) error {
	cb, err := s.readBundle(w, r)
	if err != nil {
		return err
	}
	if len(cb.Contest) == 0 {
		return rankd.Errorf(rankd.EINVALID, "the bundle has no contest")
	}
	id := fastjson.GetString(cb.Contest, "id")
	if id == "" {
		return rankd.Errorf(rankd.EINVALID, "the contest has no id")
	}
	if err := s.current(r.Context(), id); err != nil {
		return err
	}
	exists := rankd.Errorf(rankd.ECONFLICT, "contest %q exists; PATCH it to change it", id)
	if err := s.Engine.Read(id, func(*board.Board, int64) error { return nil }); err == nil {
		return exists
	}
	lines := cb.lines()
	if _, err := ccs.NewReader(bytes.NewReader(lines[0])).Next(); err != nil {
		// Without a valid contest, the rest has no contest to go to: say what is wrong with it.
		return &rankd.Error{Code: rankd.ErrorCode(err), Message: elementMessage(rankd.ErrorMessage(err), 1, true)}
	}
	if len(cb.JudgementTypes) == 0 {
		// After the bundle's objects, so that the answer numbers them as the bundle lists them.
		lines = append(lines, defaultJudgementTypeLines()...)
	}
	// Created meanwhile by another request, on this server or another: the first creation stands, and the
	// bundle's objects are refused (its contest too when it is not the same; the same is a duplicate).
	refused := false
	resp, err := s.ingestBundle(r, id, lines, func(b *board.Board) error {
		if b.Contest().ID != "" {
			refused = true
			return exists
		}
		return nil
	})
	if err != nil {
		return err
	}
	if refused || resp.Results[0].Status == engine.StatusDuplicate {
		return exists // the same bundle created at once by another request: its contest line is a duplicate
	}
	if first := resp.Results[0]; first.Status == engine.StatusRejected {
		return &rankd.Error{Code: first.Code, Message: first.Message}
	}
	return writeIngest(w, http.StatusCreated, &resp)
}

// ingestBundle submits a bundle's objects, one per line, and answers for each: the reader's "line n: " of a
// refusal says "item n: ", n numbering the objects as the bundle lists them.
func (s *Server) ingestBundle(r *http.Request, id string, lines [][]byte, guard func(*board.Board) error) (ingestResponse, error) {
	resp, err := s.ingestFeed(r, id, bytes.NewReader(bytes.Join(lines, []byte{'\n'})), false, guard)
	for i := range resp.Results {
		resp.Results[i].Message = elementMessage(resp.Results[i].Message, resp.Results[i].Item, false)
	}
	return resp, err
}

// updateContest applies a bundle to an existing contest: the contest object replaces the definition, the
// other objects are added or replace those with the same id.
func (s *Server) updateContest(w http.ResponseWriter, r *http.Request) error {
	cb, err := s.readBundle(w, r)
	if err != nil {
		return err
	}
	id := r.PathValue("cid")
	var resp ingestResponse
	if err := retried(func(stale *bool) error {
		c, st, _, err := s.contestNow(r.Context(), id)
		if err != nil {
			return err // an unknown contest is that, whatever the bundle says
		}
		if len(cb.Contest) > 0 {
			if got := fastjson.GetString(cb.Contest, "id"); got != id {
				return rankd.Errorf(rankd.EINVALID, "the contest's id %q is not %q", got, id)
			}
		}
		var reopened *rankd.State
		if len(cb.Contest) > 0 {
			if reopened, err = s.redefine(r.Context(), id, cb.lines()[0]); err != nil {
				return err
			}
		}
		// Checked against the definition and state read: a freeze by hand stored meanwhile (by another
		// server) would otherwise be undone by a definition that does not have it.
		guard := unchangedContest(stale, c, st)
		if resp, err = s.ingestBundle(r, id, cb.lines(), guard); err != nil || *stale {
			return err
		}
		if len(cb.Contest) > 0 && resp.Results[0].Status == engine.StatusRejected {
			// Refused as it was read, after a change (a freeze by hand) that no committed event of the bundle
			// saw: made again, it gets the answer it gets sent after the change (409).
			if err := s.Engine.Read(id, func(b *board.Board, _ int64) error { return guard(b) }); err != nil && *stale {
				return err
			}
		}
		if reopened != nil && resp.Results[0].Status != engine.StatusRejected {
			return s.submitEvents(r, id, rankd.Event{Type: rankd.EventState, State: reopened})
		}
		return nil
	}); err != nil {
		return err
	}
	return writeIngest(w, http.StatusOK, &resp)
}

// unchanged returns a guard (see guardOnce) of an action built from what it read of the board: it refuses the
// action, saying so in *stale, unless same reports that the board, as the action commits, still holds it.
func unchanged(stale *bool, same func(*board.Board) bool) func(*board.Board) error {
	return func(b *board.Board) error {
		if same(b) {
			return nil
		}
		*stale = true
		return errChanged
	}
}

// unchangedContest is unchanged for an action built from a contest's definition c and state st.
func unchangedContest(stale *bool, c rankd.Contest, st rankd.State) func(*board.Board) error {
	return unchanged(stale, func(b *board.Board) bool { return sameContest(b, c, st) })
}

// sameContest reports whether board b holds the contest's definition c and state st.
func sameContest(b *board.Board, c rankd.Contest, st rankd.State) bool {
	return reflect.DeepEqual(b.Contest(), c) && reflect.DeepEqual(b.State(), st)
}

// errChanged refuses an action whose events were built from what changed before they committed: it is made
// again (retried).
var errChanged = rankd.Errorf(rankd.ECONFLICT, "changed since it was read")

// retried runs an action that reads a contest's board, builds its events from what it read and submits them
// guarded: when what it read changed before they committed (another server or request stored a change), it
// runs again, so that the change stays and the action is made on top of it.
func retried(action func(stale *bool) error) error {
	const tries = 5
	for try := 1; ; try++ {
		stale := false
		err := action(&stale)
		switch {
		case !stale:
			return err
		case try == tries:
			return rankd.Errorf(rankd.EUNAVAILABLE, "the contest kept changing while this was being stored; retry")
		}
	}
}

// redefine checks a new definition of a contest (its feed line) against where the contest stands, and
// returns the state to record after it when the state must follow it (nil when not).
//   - Once the public board is frozen, it refuses to move the freeze later: the verdicts between where the
//     freeze began and where it would begin would go public (extending a frozen contest without lengthening
//     its freeze would do that; lifting the freeze is the thaw's).
//   - A start moved after the start was recorded (a delay) moves the recorded one, or takes it back when
//     the new start is still to come: the CCS wants them equal, and absolute times are read from it.
//   - A definition that ends the contest after now, when its state says it ended (the end recorded at a
//     first reveal or thaw attempt, then a power cut made up for), reopens it: the recorded end goes. Once
//     results are out (thawed, finalized by the state or by rankd, a reveal step made), that is refused.
func (s *Server) redefine(ctx context.Context, contestID string, line []byte) (*rankd.State, error) {
	ev, err := ccs.NewReader(bytes.NewReader(line)).Next()
	if err != nil || ev.Contest == nil {
		return nil, nil // the ingest says what is wrong with it
	}
	nc := ev.Contest
	now := s.Now()
	var st rankd.State
	var out bool // without rankd's final standings, asked of the store only when needed
	if err := s.Engine.Read(contestID, func(b *board.Board, _ int64) error {
		st, out = b.State(), engine.ResultsOut(b, false)
		return engine.CheckFreeze(b, nc, nil, now)
	}); err != nil {
		return nil, err
	}
	if nc.Start.IsZero() {
		return nil, nil // a start taken back moves no recorded step
	}
	changed := false
	if st.Started != nil && !st.Started.Equal(nc.Start) {
		start := &nc.Start
		if now.Before(nc.Start) {
			start = nil // delayed to later than now: not started yet
		}
		st.Started, changed = start, true
	}
	if st.Ended != nil && now.Before(nc.Start.Add(nc.Duration)) {
		// rankd's own finalization records no state; a store that cannot tell refuses too.
		_, ferr := s.Store.ActiveFinal(ctx, contestID)
		if out || rankd.ErrorCode(ferr) != rankd.ENOTFOUND {
			return nil, rankd.Errorf(rankd.ECONFLICT, "contest %q ended and its results are out (thawed, finalized or "+
				"being revealed): it cannot end after now", contestID)
		}
		st.Ended, st.EndOfUpdates, changed = nil, nil, true
	}
	if !changed {
		return nil, nil
	}
	return &st, nil
}

func defaultJudgementTypeLines() [][]byte {
	var lines [][]byte
	for _, jt := range rankd.DefaultJudgementTypes() {
		// A judgement type of ours always encodes. Without its newline: the lines are joined with one, and a
		// blank line between them would make the answer's item numbers skip.
		line, _ := ccs.AppendEvent(nil, rankd.Event{Type: rankd.EventJudgementType, ID: jt.ID, JudgementType: &jt})
		lines = append(lines, bytes.TrimSuffix(line, []byte{'\n'}))
	}
	return lines
}

// submitEvents submits events the server made; an event the engine rejects is the request's error.
func (s *Server) submitEvents(r *http.Request, contestID string, evs ...rankd.Event) error {
	return s.submitEventsGuarded(r, contestID, nil, evs...)
}

// submitEventsGuarded is submitEvents with a guard (see guardOnce).
func (s *Server) submitEventsGuarded(r *http.Request, contestID string, guard func(*board.Board) error, evs ...rankd.Event) error {
	resp, err := s.submit(r, contestID, evs, guard)
	if err != nil {
		return err
	}
	for _, res := range resp.Results {
		if res.Status == engine.StatusRejected {
			return &rankd.Error{Code: res.Code, Message: res.Message}
		}
	}
	return nil
}

// current brings a contest's board up to what every server stored, before an admin action reads it to
// build its event: in the distributed mode another server may have stored a change that this one has not
// applied yet (a rename, a reveal step), and the event would undo or repeat it. With a store of one server's
// own it does nothing.
func (s *Server) current(ctx context.Context, contestID string) error {
	if !s.Engine.Shared {
		return nil
	}
	if err := s.Engine.SyncContest(ctx, contestID); err != nil {
		if _, ok := errors.AsType[*rankd.Error](err); ok {
			return err
		}
		return rankd.Errorf(rankd.EUNAVAILABLE, "the contest's log could not be read; retry") // the engine logged why
	}
	return nil
}

// team returns a team of a contest as every server stored it, and whether it is banned.
func (s *Server) team(ctx context.Context, contestID, teamID string) (t rankd.Team, banned bool, err error) {
	if err := s.current(ctx, contestID); err != nil {
		return rankd.Team{}, false, err
	}
	err = s.Engine.Read(contestID, func(b *board.Board, _ int64) error {
		var ok bool
		t, banned, ok = b.Team(teamID)
		if !ok {
			return rankd.Errorf(rankd.ENOTFOUND, "no team %q in contest %q", teamID, contestID)
		}
		return nil
	})
	return t, banned, err
}

// setBan bans a team (off the board at once, its submissions kept) or lets it back.
func (s *Server) setBan(banned bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		cid, tid := r.PathValue("cid"), r.PathValue("tid")
		if _, _, err := s.team(r.Context(), cid, tid); err != nil {
			return err
		}
		ev := rankd.Event{Type: rankd.EventBan, ID: tid, Ban: &rankd.Ban{TeamID: tid, Banned: banned}}
		if err := s.submitEvents(r, cid, ev); err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, map[string]any{"team_id": tid, "banned": banned})
	}
}

// setHidden hides a team (off the public board, as a team of the jury's) or shows it again.
func (s *Server) setHidden(hidden bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		cid, tid := r.PathValue("cid"), r.PathValue("tid")
		if err := retried(func(stale *bool) error {
			read, _, err := s.team(r.Context(), cid, tid)
			if err != nil {
				return err
			}
			t := read
			t.Hidden = hidden
			// A change of the team stored meanwhile (a rename by a judge system) is kept: hidden on top of it.
			return s.submitEventsGuarded(r, cid, unchanged(stale, func(b *board.Board) bool {
				cur, _, ok := b.Team(tid)
				return ok && reflect.DeepEqual(cur, read)
			}), rankd.Event{Type: rankd.EventTeam, ID: tid, Team: &t})
		}); err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, map[string]any{"team_id": tid, "hidden": hidden})
	}
}

// issueTeamToken makes a new token for a team, which lets it see its own verdicts during the freeze.
func (s *Server) issueTeamToken(w http.ResponseWriter, r *http.Request) error {
	cid, tid := r.PathValue("cid"), r.PathValue("tid")
	if _, _, err := s.team(r.Context(), cid, tid); err != nil {
		return err
	}
	t := rankd.Token{Secret: NewSecret(), Role: rankd.RoleTeam, ContestID: cid, TeamID: tid, Name: "team " + tid}
	if err := s.Store.SaveToken(r.Context(), t); err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, map[string]string{"token": t.Secret, "contest_id": cid, "team_id": tid})
}

// revokeTeamTokens revokes every token issued for a team (a leaked one, say): requests with them are
// refused from now on, and their live streams end before their next frame (those of another server of the
// distributed mode at their next heartbeat). The team needs not exist any more; the contest does.
func (s *Server) revokeTeamTokens(w http.ResponseWriter, r *http.Request) error {
	cid, tid := r.PathValue("cid"), r.PathValue("tid")
	if _, _, _, err := s.contestNow(r.Context(), cid); err != nil {
		return err
	}
	n, err := s.Store.DeleteTeamTokens(r.Context(), cid, tid)
	if err != nil {
		return err
	}
	s.Auth.forget(cid, tid)
	s.revocations.Add(1)
	return writeJSON(w, http.StatusOK, map[string]any{"revoked": n, "contest_id": cid, "team_id": tid})
}

// contestNow returns a contest's definition and state as every server stored them, and how far into it now
// is.
func (s *Server) contestNow(ctx context.Context, contestID string) (c rankd.Contest, st rankd.State, now time.Time, err error) {
	if err := s.current(ctx, contestID); err != nil {
		return c, st, now, err
	}
	err = s.Engine.Read(contestID, func(b *board.Board, _ int64) error {
		c, st = b.Contest(), b.State()
		return nil
	})
	return c, st, s.Now(), err
}

// freeze freezes the public board from now on: the contest's freeze moves to now.
func (s *Server) freeze(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	var elapsed time.Duration
	if err := retried(func(stale *bool) error {
		c, st, now, err := s.contestNow(r.Context(), cid)
		if err != nil {
			return err
		}
		guard := unchangedContest(stale, c, st)
		start := rankd.StartOf(&c, st)
		elapsed = now.Sub(start).Truncate(time.Second)
		if start.IsZero() || elapsed < 0 || elapsed >= c.Duration {
			return rankd.Errorf(rankd.EUNPROCESSABLE, "contest %q is not running: only a running contest can be frozen", cid)
		}
		if ft := rankd.FreezeOf(&c, st); ft <= elapsed {
			return rankd.Errorf(rankd.ECONFLICT, "contest %q is already frozen since %s", cid, ccs.FormatRelTime(ft))
		}
		c.FreezeDuration = c.Duration - elapsed
		frozen := start.Add(elapsed)
		st.Frozen = &frozen
		if st.Started == nil {
			st.Started = &start
		}
		return s.submitEventsGuarded(r, cid, guard,
			rankd.Event{Type: rankd.EventContest, ID: cid, Contest: &c},
			rankd.Event{Type: rankd.EventState, State: &st})
	}); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]string{"frozen_at": ccs.FormatRelTime(elapsed)})
}

// thaw shows the public the live board: after the end, by marking the contest thawed (the final board);
// during the contest, by lifting the freeze.
func (s *Server) thaw(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	var now, end time.Time
	if err := retried(func(stale *bool) (err error) {
		now, end, err = s.thawOnce(r, cid, stale)
		return err
	}); err != nil {
		return err
	}
	if !now.Before(end) && s.Finalizer != nil {
		// The final standings built at the end show the public its frozen board: a new version shows the thaw.
		if _, err := s.Finalizer.Run(r.Context(), cid, now); err != nil {
			s.Logger.Warn("finalizing after the thaw failed; POST /finalize to retry", slog.String("contest", cid),
				slog.String("error", err.Error()))
		}
	}
	return writeJSON(w, http.StatusOK, map[string]bool{"thawed": true})
}

// thawOnce stores a thaw, guarded by the definition and state it was built from (see retried), and returns
// when it was made and when the contest ends.
func (s *Server) thawOnce(r *http.Request, cid string, stale *bool) (now, end time.Time, err error) {
	c, st, now, err := s.contestNow(r.Context(), cid)
	if err != nil {
		return now, end, err
	}
	guard := unchangedContest(stale, c, st)
	start := rankd.StartOf(&c, st)
	if start.IsZero() || now.Before(start) {
		return now, end, rankd.Errorf(rankd.EUNPROCESSABLE, "contest %q has not started", cid)
	}
	if st.Started == nil {
		st.Started = &start
	}
	end = start.Add(c.Duration)
	var evs []rankd.Event
	if now.Before(end) {
		if c.HidesUntilEnd() {
			return now, end, rankd.Errorf(rankd.ECONFLICT, "contest %q hides its results from the public until its end (hide_until_end): they show then, not by a thaw", cid)
		}
		if ft := rankd.FreezeOf(&c, st); now.Before(start.Add(ft)) {
			// Not frozen yet: a thaw would drop the freeze to come, which an organiser does by editing the
			// contest, not by a thaw sent too early.
			return now, end, rankd.Errorf(rankd.ECONFLICT, "contest %q is not frozen (its freeze starts at %s): set its freeze duration to 0 to run without one", cid, ccs.FormatRelTime(ft))
		}
		c.FreezeDuration = 0
		st.Frozen = nil
		evs = append(evs, rankd.Event{Type: rankd.EventContest, ID: cid, Contest: &c})
	} else {
		if st.Ended == nil {
			st.Ended = &end
		}
		if st.Thawed == nil {
			st.Thawed = &now
		}
		st = st.WithFreeze(&c)
	}
	evs = append(evs, rankd.Event{Type: rankd.EventState, State: &st})
	return now, end, s.submitEventsGuarded(r, cid, guard, evs...)
}
