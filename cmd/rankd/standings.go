package main

import (
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/width"

	"rankd"
	"rankd/board"
	"rankd/ccs"
	"rankd/engine"
	"rankd/export"
)

// feedFlags are the options of the commands that compute a board from a feed.
type feedFlags struct {
	fs             *flag.FlagSet
	feed, view, at string
	// check, when set, checks the command's own flags before the feed is read, which takes a while.
	check func() error
}

func (m *Main) feedFlags(name, what, views string) *feedFlags {
	f := &feedFlags{fs: flag.NewFlagSet(name, flag.ContinueOnError)}
	f.fs.SetOutput(m.Stderr)
	f.fs.StringVar(&f.feed, "feed", "", "CCS event feed (NDJSON), or - for standard input")
	f.fs.StringVar(&f.view, "view", "public", "view: "+views)
	f.fs.StringVar(&f.at, "at", "", what+" at this contest time (H:MM:SS) or absolute time (RFC 3339)")
	return f
}

// load parses the arguments and computes the board of the feed, as known at the asked moment, in the view.
func (f *feedFlags) load(ctx context.Context, m *Main, args []string) (*board.Board, rankd.View, atTime, error) {
	if err := parseFlags(f.fs, args); err != nil {
		return nil, rankd.View{}, atTime{}, err
	}
	if f.fs.NArg() > 0 {
		fmt.Fprintf(m.Stderr, "rankd %s: unexpected argument %q (the feed is --feed FILE; flags come before arguments)\n", f.fs.Name(), f.fs.Arg(0))
		f.fs.Usage()
		return nil, rankd.View{}, atTime{}, errUsage
	}
	if f.feed == "" {
		fmt.Fprintf(m.Stderr, "rankd %s: --feed FILE is required\n", f.fs.Name())
		f.fs.Usage()
		return nil, rankd.View{}, atTime{}, errUsage
	}
	view, err := rankd.ParseView(f.view)
	if err != nil {
		return nil, rankd.View{}, atTime{}, m.badFlag(f.fs.Name(), err)
	}
	at, err := parseAt(f.at)
	if err != nil {
		return nil, rankd.View{}, atTime{}, m.badFlag(f.fs.Name(), err)
	}
	if f.check != nil {
		if err := f.check(); err != nil {
			return nil, rankd.View{}, atTime{}, m.badFlag(f.fs.Name(), err)
		}
	}
	b, err := m.loadResults(ctx, f.feed, at)
	return b, view, at, err
}

// loadResults is load for the commands that report a feed's results: a contest whose time is up at the asked
// moment (now, without --at) has ended, as a server records it by the clock, though its feed says nothing of
// its end (an OI contest hidden until its end would stay hidden); a contest finalized before its thaw (the
// CCS allows it) has final results, and its public view here is the final board, as a thaw shows it. Only a
// server's public board waits for the thaw itself.
func (m *Main) loadResults(ctx context.Context, path string, at atTime) (*board.Board, error) {
	b, err := m.load(ctx, path, at)
	if err != nil {
		return nil, err
	}
	moment := m.now()
	if at.set && !b.Start().IsZero() {
		moment = b.Start().Add(at.contestTime(b))
	}
	if st, ok := engine.EndState(b, moment); ok {
		if _, err := b.Apply(&rankd.Event{Type: rankd.EventState, State: st}); err != nil {
			return nil, err
		}
	}
	if st := b.State(); st.Finalized != nil && st.Thawed == nil {
		st.Thawed = st.Finalized
		if _, err := b.Apply(&rankd.Event{Type: rankd.EventState, State: &st}); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (m *Main) standings(ctx context.Context, args []string) error {
	f := m.feedFlags("standings", "standings", "public, jury or team:ID (the public view of a thawed or finalized contest is final)")
	group := f.fs.String("group", "", "rank only the teams of this group")
	format := f.fs.String("format", "text", "output: text, csv or ccs (a Contest API 2023-06 scoreboard object)")
	f.check = func() error {
		if *format != "text" && *format != "csv" && *format != "ccs" {
			return fmt.Errorf("unknown format %q (want text, csv or ccs)", *format)
		}
		return nil
	}
	b, view, at, err := f.load(ctx, m, args)
	if err != nil {
		return err
	}
	var st rankd.Standings
	if *group != "" {
		st, err = b.GroupStandings(view, *group, 0, -1)
	} else {
		st, err = b.Standings(view, 0, -1)
	}
	if err != nil {
		return err
	}
	switch *format {
	case "ccs":
		c := b.Contest()
		sb := ccs.Scoreboard(&c, b.Problems(), st, b.State(), boardTime(b, at, m.now()))
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sb)
	case "csv":
		return writeCSV(m.Stdout, b, st)
	}
	return writeText(m.Stdout, b, st, at)
}

func (m *Main) awards(ctx context.Context, args []string) error {
	b, view, _, err := m.feedFlags("awards", "awards", "public, jury or team:ID (as that team sees the board)").load(ctx, m, args)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(m.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(ccs.Awards(b.Awards(view)))
}

// atTime is the moment asked for with --at: a contest time, or an absolute time resolved once the contest's
// start is known. The server's ?at= reads the same (engine.ParseAt).
type atTime struct {
	set bool
	engine.At
}

func parseAt(s string) (atTime, error) {
	if s == "" {
		return atTime{}, nil
	}
	a, err := engine.ParseAt(s)
	if err != nil {
		return atTime{}, fmt.Errorf("--at %q: want a contest time such as 4:00:00 or 240m, or an RFC 3339 time", s)
	}
	return atTime{set: true, At: a}, nil
}

// contestTime resolves the asked moment to a contest time.
func (a atTime) contestTime(b *board.Board) time.Duration { return a.ContestTime(b.Start()) }

// boardTime is the moment the standings describe, for the CCS "time" field: the asked moment, or the end.
// A contest with no start yet has no moment of its own: its board is as read, now.
func boardTime(b *board.Board, at atTime, now time.Time) time.Time {
	c := b.Contest()
	switch {
	case b.Start().IsZero():
		return now
	case at.set:
		return b.Start().Add(at.contestTime(b))
	case b.State().Ended != nil:
		return *b.State().Ended
	}
	return b.Start().Add(c.Duration)
}

// load reads a feed into a new board, keeping only what was known at the asked moment. Events the board
// cannot use are skipped, counted and reported on standard error with their line.
func (m *Main) load(ctx context.Context, path string, at atTime) (*board.Board, error) {
	var r io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b := board.New()
	var skipped int
	report := func(err error) {
		skipped++
		if skipped <= 10 {
			fmt.Fprintf(m.Stderr, "rankd: skipped: %s\n", rankd.ErrorMessage(err))
		}
	}
	outside := 0 // submissions outside the contest time, which are kept but count nowhere
	noteOutside := func(ev *rankd.Event, line int) {
		if t, d := ev.Submission.Time, b.Contest().Duration; t < 0 || d > 0 && t >= d {
			if outside++; outside <= 10 {
				fmt.Fprintf(m.Stderr, "rankd: line %d: submission %s at %s is outside the contest time: it does not count\n",
					line, ev.Submission.ID, ccs.FormatRelTime(t))
			}
		}
	}
	_, err := ccs.Pipeline(ctx, r, func(ev *rankd.Event, line int, err error) error {
		if err != nil {
			if !badLine(err) {
				return err // a read error, not a bad line
			}
			report(err)
			return nil
		}
		if at.set {
			_, _, err = b.ApplyAsOf(ev, at.contestTime(b), b.Start()) // as the server's ?at= does
		} else {
			_, err = b.Apply(ev)
		}
		if err != nil {
			report(rankd.Errorf(rankd.ErrorCode(err), "line %d: %s", line, rankd.ErrorMessage(err)))
		} else if ev.Type == rankd.EventSubmission && ev.Submission != nil {
			noteOutside(ev, line)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	switch {
	case skipped > 10:
		fmt.Fprintf(m.Stderr, "rankd: ... %d events skipped in all\n", skipped)
	case skipped > 0:
		fmt.Fprintf(m.Stderr, "rankd: %d events skipped in all\n", skipped)
	}
	switch {
	case b.Contest().ID == "":
		// An empty board would be written as results all the same: a file that wipes an upload.
		return nil, fmt.Errorf("%s defines no contest (no contest event could be read): nothing to rank", path)
	case at.set && !at.Abs.IsZero() && b.Start().IsZero():
		return nil, fmt.Errorf("--at %s: the contest has no start time, so no moment of it is known by the clock; give a contest time such as 4:00:00", at.Abs.Format(time.RFC3339))
	}
	if st := b.Stats(); st.Outside > 0 {
		fmt.Fprintf(m.Stderr, "rankd: %d submissions outside the contest time do not count\n", st.Outside)
	}
	return b, nil
}

// teamName is a team's name (CSV: the team's data), else its id; shownName what its row shows, as on the
// web board (rankd.Team.ShownName).
func teamName(b *board.Board, id string) string {
	if t, _, ok := b.Team(id); ok {
		return cmp.Or(t.Name, id)
	}
	return id
}

func shownName(b *board.Board, id string) string {
	if t, _, ok := b.Team(id); ok {
		return t.ShownName()
	}
	return id
}

// cellText renders a cell compactly: ICPC "+1/45" (one rejection, solved at minute 45, "*" first to solve),
// "-2" (two rejections), "?1" (one pending); score contests the score.
func cellText(c rankd.Contest, cell rankd.Cell) string {
	var s string
	switch {
	case c.Rules == rankd.ICPC && cell.Solved:
		s = fmt.Sprintf("+%d/%d", cell.Judged-1, int64(cell.Time/time.Minute))
		if cell.Judged == 1 {
			s = fmt.Sprintf("+/%d", int64(cell.Time/time.Minute))
		}
		if cell.FirstToSolve {
			s += "*"
		}
	case c.Rules == rankd.ICPC && cell.Judged > 0:
		s = fmt.Sprintf("-%d", cell.Judged)
	case c.Rules != rankd.ICPC && (cell.Judged > 0 || cell.Solved):
		s = strconv.FormatFloat(cell.Score, 'f', -1, 64)
		if cell.FirstToSolve {
			s += "*"
		}
	}
	if cell.Pending > 0 {
		if s != "" {
			s += " "
		}
		s += fmt.Sprintf("?%d", cell.Pending)
	}
	if s == "" {
		s = "."
	}
	return s
}

func total(c rankd.Contest, r rankd.Row) (string, string) {
	if c.Rules == rankd.ICPC {
		return strconv.Itoa(r.Solved), strconv.FormatInt(r.Penalty, 10)
	}
	return strconv.FormatFloat(r.Score, 'f', -1, 64), strconv.FormatInt(int64(r.Time/time.Minute), 10)
}

func writeText(w io.Writer, b *board.Board, st rankd.Standings, at atTime) error {
	c := b.Contest()
	name := c.FormalName
	if name == "" {
		name = c.Name
	}
	fmt.Fprintf(w, "%s (%s) — %s view, %d teams ranked\n", printable(name), c.Rules, st.View, st.Total)
	ft := rankd.FreezeOf(&c, b.State())
	switch {
	case st.View.Kind == rankd.ViewJury || b.State().Revealed():
	case c.HidesUntilEnd():
		// Hidden from the start, whatever the freeze, until the log says the contest ended.
		if b.State().Ended == nil {
			fmt.Fprintln(w, "Hidden until the end: every submission shows as pending (?)")
		}
	case ft < c.Duration && (!at.set || at.contestTime(b) >= ft):
		if step, _, remaining := b.Reveal(); step > 0 && remaining == 0 && !at.set {
			fmt.Fprintf(w, "Frozen from %s, and every result since revealed\n", ccs.FormatRelTime(ft))
		} else {
			fmt.Fprintf(w, "Frozen from %s: later submissions show as pending (?)\n", ccs.FormatRelTime(ft))
		}
	}
	head := []string{"Rank", "Team", "Solved", "Time"}
	if c.Rules != rankd.ICPC {
		head[2], head[3] = "Score", "Minute"
	}
	for _, p := range b.Problems() {
		head = append(head, cmp.Or(p.Label, p.ID))
	}
	lines := [][]string{head}
	for _, r := range st.Rows {
		a, t := total(c, r)
		line := []string{strconv.Itoa(r.Rank), shownName(b, r.TeamID), a, t}
		for _, cell := range r.Cells {
			line = append(line, cellText(c, cell))
		}
		lines = append(lines, line)
	}
	return writeColumns(w, lines)
}

// writeColumns writes a table right-aligned, two spaces before each column. Widths are counted in terminal
// columns, not bytes or runes (text/tabwriter counts runes), so that wide CJK and emoji, or combining
// accents, in team names do not shift the columns; control characters (a tab or a line break in a name)
// would break the table and show as spaces.
func writeColumns(w io.Writer, lines [][]string) error {
	var widths []int
	for _, line := range lines {
		for i, cell := range line {
			line[i] = printable(cell)
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], columns(line[i]))
		}
	}
	var sb strings.Builder
	for _, line := range lines {
		for i, cell := range line {
			sb.WriteString(strings.Repeat(" ", widths[i]+2-columns(cell)))
			sb.WriteString(cell)
		}
		sb.WriteByte('\n')
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// printable replaces control characters by spaces.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// columns is how many terminal columns s takes: two for East Asian wide and fullwidth characters (CJK,
// most emoji), none for combining marks and format characters.
func columns(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		case width.LookupRune(r).Kind() == width.EastAsianWide, width.LookupRune(r).Kind() == width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

func writeCSV(w io.Writer, b *board.Board, st rankd.Standings) error {
	c := b.Contest()
	cw := csv.NewWriter(w)
	head := []string{"rank", "team_id", "team", "solved", "penalty"}
	if c.Rules != rankd.ICPC {
		head[3], head[4] = "score", "minute"
	}
	for _, p := range b.Problems() {
		head = append(head, export.Defuse(cmp.Or(p.Label, p.ID)))
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range st.Rows {
		a, t := total(c, r)
		// Ids and names are the teams' own text: a spreadsheet must not run one as a formula.
		line := []string{strconv.Itoa(r.Rank), export.Defuse(r.TeamID), export.Defuse(teamName(b, r.TeamID)), a, t}
		for _, cell := range r.Cells {
			line = append(line, cellText(c, cell))
		}
		if err := cw.Write(line); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// badLine reports whether a reader's error is about one line (malformed or too long), after which reading
// goes on, rather than a failure to read at all.
func badLine(err error) bool {
	code := rankd.ErrorCode(err)
	return code == rankd.EINVALID || code == rankd.ETOOLARGE
}
