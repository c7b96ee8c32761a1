package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"rankd"
	"rankd/ccs"
	"rankd/gen"
)

func (m *Main) gen(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	var cfg gen.Config
	rules := fs.String("rules", "icpc", "rules: icpc, oi, ioi or ctf")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "random seed: the same options give the same feed")
	fs.StringVar(&cfg.ContestID, "id", "gen", "contest id")
	fs.IntVar(&cfg.Teams, "teams", 100, "number of teams")
	fs.IntVar(&cfg.Problems, "problems", 12, "number of problems")
	fs.IntVar(&cfg.Submissions, "submissions", 0, "number of submissions (default 10 per team)")
	fs.IntVar(&cfg.Groups, "groups", 2, "number of team groups")
	fs.IntVar(&cfg.HiddenTeams, "hidden", 0, "number of hidden teams")
	fs.DurationVar(&cfg.Duration, "duration", 0, "contest length (default 5h)")
	freeze := fs.Duration("freeze", time.Hour, "length of the frozen last part; 0 for none")
	fs.BoolVar(&cfg.Thaw, "thaw", false, "end with the contest thawed and finalized")
	out := fs.String("out", "-", "output file, - for standard output")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	var err error
	if cfg.Rules, err = rankd.ParseRules(*rules); err != nil {
		return err
	}
	if cfg.Teams < 1 || cfg.Problems < 1 || cfg.Submissions < 0 || cfg.Groups < 0 || cfg.HiddenTeams < 0 || cfg.HiddenTeams > cfg.Teams {
		return fmt.Errorf("gen: teams and problems must be positive; submissions, groups and hidden teams not negative; hidden at most teams")
	}
	cfg.Freeze = *freeze
	if cfg.Freeze == 0 {
		cfg.Freeze = gen.NoFreeze
	}
	if *out == "-" {
		return generate(ctx, cfg, m.Stdout)
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := errors.Join(generate(ctx, cfg, f), f.Close()); err != nil {
		// A feed cut short (an interrupt, a full disk) still reads as a contest, only a wrong one.
		_ = os.Remove(*out)
		return err
	}
	return nil
}

// generate writes the feed of cfg to w.
func generate(ctx context.Context, cfg gen.Config, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	fw := ccs.NewWriter(bw)
	n := 0
	err := gen.Generate(cfg, func(ev rankd.Event) error {
		if n++; n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return fw.Write(ev)
	})
	if err != nil {
		return err
	}
	if err := fw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}
