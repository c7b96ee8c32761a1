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

// getExport answers the standings of a view as a file to download: CSV, XLSX, the ICPC results.tsv or the
// CCS scoreboard JSON. The board's lock is held only while its rows are copied: writing a workbook of ten
// thousand teams takes longer than a commit should wait.
func (s *Server) getExport(w http.ResponseWriter, r *http.Request) error {
	cid := r.PathValue("cid")
	format := r.URL.Query().Get("format")
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
		if r.URL.Query().Get("view") != "" {
			return rankd.Errorf(rankd.EINVALID, "exports are of the public or the jury view")
		}
		v = rankd.PublicView // a team token's default, as the history's
	}
	// Set once there is a file: an error is an answer to read, not a download named as the file.
	disposition := fmt.Sprintf("attachment; filename=%s", strconv.Quote(cid+"-"+v.String()+"."+format))
	if f.write == nil {
		w.Header().Set("Content-Disposition", disposition)
		if err := s.writeCCSScoreboard(w, r, cid, v); err != nil {
			w.Header().Del("Content-Disposition")
			return err
		}
		return nil
	}
	var eb *export.Board
	err = s.Engine.Read(cid, func(b *board.Board, _ int64) error {
		st, err := b.Standings(v, 0, -1)
		eb = export.FromBoard(b, v, st)
		return err
	})
	if err != nil {
		return err
	}
	w.Header().Set("Content-Disposition", disposition)
	var buf bytes.Buffer
	if err := f.write(&buf, eb); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", f.mediaType)
	h.Set("Cache-Control", cacheControl(v))
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	_, _ = w.Write(buf.Bytes()) // an error is the client gone
	return nil
}
