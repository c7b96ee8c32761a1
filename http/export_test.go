package http_test

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// The standings as files to download: each format with its media type and name; the jury's needs its token.
func TestExport(t *testing.T) {
	e := MustOpen(t)
	e.MustContest(t)
	for _, tc := range []struct {
		query, token string
		status       int
		mediaType    string
		file         string
	}{
		{"format=csv", "", http.StatusOK, "text/csv; charset=utf-8", `"c1-public.csv"`},
		{"format=tsv&view=jury", adminToken, http.StatusOK, "text/tab-separated-values; charset=utf-8", `"c1-jury.tsv"`},
		{"format=xlsx", "", http.StatusOK, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", `"c1-public.xlsx"`},
		{"format=ccs", "", http.StatusOK, "application/json", `"c1-public.json"`},
		{"format=pdf", "", http.StatusBadRequest, "", ""},
		{"format=csv&view=jury", "", http.StatusUnauthorized, "", ""},
	} {
		r := e.Do(t, "GET", "/api/v1/contests/c1/export?"+tc.query, tc.token, nil)
		if r.Status != tc.status {
			t.Errorf("%s: got status %d, want %d: %s", tc.query, r.Status, tc.status, r.Body)
			continue
		}
		if tc.status != http.StatusOK {
			continue
		}
		if got := r.Header.Get("Content-Type"); got != tc.mediaType {
			t.Errorf("%s: got type %q, want %q", tc.query, got, tc.mediaType)
		}
		if got := r.Header.Get("Content-Disposition"); got != "attachment; filename="+tc.file {
			t.Errorf("%s: got disposition %q, want the file %s", tc.query, got, tc.file)
		}
	}

	// The public CSV: t1 first (A solved before the freeze); t2's and t3's frozen submissions pending.
	r := e.Do(t, "GET", "/api/v1/contests/c1/export?format=csv", "", nil)
	rows, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || rows[1][1] != "t1" || rows[1][0] != "1" {
		t.Errorf("public csv: got %q, want a header and three teams, t1 first", rows)
	}
	// The jury's results.tsv: the jury sees what the public does not, and the file says so.
	jury := string(e.Do(t, "GET", "/api/v1/contests/c1/export?format=tsv&view=jury", adminToken, nil).Body)
	if !strings.HasPrefix(jury, "results\t1\n") {
		t.Errorf("results.tsv: got %q", jury)
	}
	// The workbook opens.
	x := e.Do(t, "GET", "/api/v1/contests/c1/export?format=xlsx", "", nil)
	f, err := excelize.OpenReader(bytes.NewReader(x.Body))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if v, err := f.GetCellValue("Standings", "B2"); err != nil || v != "t1" {
		t.Errorf("workbook: got B2 %q (%v), want t1", v, err)
	}
}
