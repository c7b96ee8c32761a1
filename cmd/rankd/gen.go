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
	fs.DurationVar(&cfg.Duration, "duration", 5*time.Hour, "contest length")
	freeze := fs.Duration("freeze", 0, "length of the frozen last part; 0 for none (default: the last hour, or the last quarter of a contest shorter than 4h)")
	fs.BoolVar(&cfg.Thaw, "thaw", false, "end with the contest thawed and finalized")
	out := fs.String("out", "-", "output file, - for standard output")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(m.Stderr, "rankd gen: unexpected argument %q (flags only; the feed goes to --out)\n", fs.Arg(0))
		fs.Usage()
		return errUsage
	}
	var err error
	if cfg.Rules, err = rankd.ParseRules(*rules); err != nil {
		return m.badFlag("gen", err)
	}
	freezeSet, submissionsSet := false, false
	fs.Visit(func(f *flag.Flag) {
		freezeSet = freezeSet || f.Name == "freeze"
		submissionsSet = submissionsSet || f.Name == "submissions"
	})
	switch {
	case !freezeSet:
		cfg.Freeze = 0 // gen's default, which follows the duration
	case *freeze == 0:
		cfg.Freeze = gen.NoFreeze
	default:
		cfg.Freeze = *freeze
	}
	// gen.Config takes a zero count for its default: here a zero is a mistake, said with the flag's name.
	switch {
	case cfg.Teams < 1:
		err = errors.New("--teams must be at least 1")
	case cfg.Problems < 1:
		err = errors.New("--problems must be at least 1")
	case cfg.Submissions < 0 || cfg.Groups < 0:
		err = errors.New("--submissions and --groups must not be negative")
	case cfg.Submissions == 0 && submissionsSet:
		err = errors.New("--submissions must be at least 1 (leave it out for 10 per team)")
	case cfg.HiddenTeams < 0 || cfg.HiddenTeams > cfg.Teams:
		err = fmt.Errorf("--hidden must be from 0 to the %d teams", cfg.Teams)
	case cfg.Duration < time.Minute:
		err = errors.New("--duration must be at least a minute")
	case *freeze < 0 || *freeze > cfg.Duration:
		err = fmt.Errorf("--freeze must be from 0 (no freeze) to the duration, %v", cfg.Duration)
	}
	if err != nil {
		return m.badFlag("gen", err)
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
