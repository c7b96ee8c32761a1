package http

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"rankd"
	"rankd/board"
	"rankd/export"
)

// exportFormats are the formats of GET .../export: a writer of package export, its media type and file
// extension. json is the CCS scoreboard object, as /api/contests/{id}/scoreboard serves it.
var exportFormats = map[string]struct {
	write     func(io.Writer, *export.Board) error
	mediaType string
}{
	"csv":  {export.CSV, "text/csv; charset=utf-8"},
	"xlsx": {export.XLSX, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	"tsv":  {export.ResultsTSV, "text/tab-separated-values; charset=utf-8"},
	"json": {nil, "application/json"},
}

// exportBuilds bounds the exports built at once, by all servers of the process: a workbook of 10,000 teams
// takes tens of megabytes while it is written, and anyone may ask for the public one.
var exportBuilds = make(chan struct{}, 4)

// getExport answers the standings of a view as a file to download: CSV, XLSX, the ICPC results.tsv or the
// CCS scoreboard JSON. The board's lock is held only while its rows are copied: writing a workbook of ten
// thousand teams takes longer than a commit should wait. Requests for the same file of the same version of
// the view share one build.
func (s *Server) getExport(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	format := param(r, "format")
	if format == "ccs" {
		format = "json"
	}
	f, ok := exportFormats[format]
	if !ok {
		return rankd.Errorf(rankd.EINVALID, "format must be csv, xlsx, tsv or json, not %q", format)
	}
	v, err := s.viewFor(r, cid)
	if err != nil {
		return err
	}
	if v.Kind == rankd.ViewTeam {
		if param(r, "view") != "" {
			return rankd.Errorf(rankd.EINVALID, "exports are of the public or the jury view")
		}
		v = rankd.PublicView // a team token's default, as the history's
	}
	// Set once there is a file: an error is an answer to read, not a download named as the file.
	disposition := fmt.Sprintf("attachment; filename=%s", strconv.Quote(cid+"-"+v.String()+"."+format))
	if f.write == nil {
		w.Header().Set("Content-Disposition", disposition)
		if err := s.writeCCSScoreboard(w, r, cid, v, ""); err != nil {
			w.Header().Del("Content-Disposition")
			return err
		}
		return nil
	}
	seq, err := s.exportSeq(cid, v)
	if err != nil {
		return err
	}
	// The group is the final standings' (the server's own), under keys of its own.
	built, err, _ := s.finals.group.Do(fmt.Sprintf("export|%s|%s|%s|%d", cid, v, format, seq), func() (any, error) {
		return s.buildExport(cid, v, f.write)
	})
	if err != nil {
		return err
	}
	body := built.([]byte)
	h := w.Header()
	h.Set("Content-Disposition", disposition)
	h.Set("Content-Type", f.mediaType)
	h["Cache-Control"] = cacheControl(v)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body) // an error is the client gone
	return nil
}

// exportSeq returns the sequence number of a view of a contest; the public one's without the board's lock.
func (s *Server) exportSeq(cid string, v rankd.View) (uint64, error) {
	if v.Kind == rankd.ViewPublic {
		if p, ok := s.Engine.Public(cid); ok {
			return p.Seq, nil
		}
	}
	var seq uint64
	err := s.readBoard(cid, v, func(b *board.Board, _ int64) error {
		seq = b.Seq(v)
		return nil
	})
	return seq, err
}

// buildExport writes view v of a contest with write, once one of exportBuilds is free.
func (s *Server) buildExport(cid string, v rankd.View, write func(io.Writer, *export.Board) error) ([]byte, error) {
	exportBuilds <- struct{}{}
	defer func() { <-exportBuilds }()
	var eb *export.Board
	err := s.readBoard(cid, v, func(b *board.Board, _ int64) error {
		st, err := b.Standings(v, 0, -1)
		eb = export.FromBoard(b, v, st)
		return err
	})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := write(&buf, eb); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
