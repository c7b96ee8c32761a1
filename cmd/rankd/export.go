package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"rankd"
	"rankd/ccs"
	"rankd/export"
)

// export writes the standings of a feed, computed offline as "rankd standings" does, in a format for
// organisers.
func (m *Main) export(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	format := fs.String("format", "csv", "csv, xlsx, tsv (the ICPC results.tsv) or json (a Contest API 2023-06 scoreboard object; also ccs)")
	viewName := fs.String("view", "public", "public or jury (the public view of a thawed or finalized contest is final)")
	out := fs.String("out", "", "write to this file instead of standard output (required for xlsx)")
	feedFlag := fs.String("feed", "", "the CCS event feed (NDJSON), or - for standard input; also given after the flags, as FEED")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "Usage: rankd export [--format csv|xlsx|tsv|json] [--view public|jury] [--out FILE] FEED.ndjson (or --feed FEED.ndjson)")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	feedPath := *feedFlag
	if feedPath == "" && fs.NArg() == 1 {
		feedPath = fs.Arg(0)
	}
	if feedPath == "" || fs.NArg() > 1 || *feedFlag != "" && fs.NArg() > 0 {
		fmt.Fprintln(m.Stderr, "rankd export: give one CCS event feed (NDJSON), or - for standard input: --feed FILE, or FILE after the flags")
		fs.Usage()
		return errUsage
	}
	switch *format {
	case "ccs":
		*format = "json" // the Contest API's scoreboard JSON, by the name "rankd standings" gives it
	case "csv", "xlsx", "tsv", "json":
	default:
		return m.badFlag("export", fmt.Errorf("unknown format %q (want csv, xlsx, tsv or json)", *format))
	}
	if *format == "xlsx" && *out == "" {
		// A workbook is binary: on a terminal it is garbage, and a pipe is rarely what was meant.
		return m.badFlag("export", fmt.Errorf("xlsx needs --out FILE"))
	}
	view, err := rankd.ParseView(*viewName)
	if err != nil {
		return m.badFlag("export", err)
	}
	if view.Kind == rankd.ViewTeam {
		return m.badFlag("export", fmt.Errorf("--view %s: exports are of the public or the jury view", *viewName))
	}

	b, err := m.loadResults(ctx, feedPath, atTime{})
	if err != nil {
		return err
	}
	st, err := b.Standings(view, 0, -1)
	if err != nil {
		return err
	}
	eb := export.FromBoard(b, view, st)
	write := func(w io.Writer) error {
		switch *format {
		case "csv":
			return export.CSV(w, eb)
		case "xlsx":
			return export.XLSX(w, eb)
		case "tsv":
			return export.ResultsTSV(w, eb)
		}
		// The Contest API scoreboard is package ccs's, as for "rankd standings --format ccs": one object.
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(ccs.Scoreboard(&eb.Contest, eb.Problems, st, b.State(), boardTime(b, atTime{}, m.now()))); err != nil {
			return fmt.Errorf("write json: %w", err)
		}
		return nil
	}
	if *out == "" {
		return write(m.Stdout)
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		_ = f.Close()
		_ = os.Remove(*out) // a half-written export is worse than none
		return err
	}
	return f.Close()
}
