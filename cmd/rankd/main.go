// Command rankd is the rankd scoreboard: it computes standings from contest feeds, generates synthetic
// contests and measures the engine. Run "rankd help" for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"rankd"
)

func main() {
	ctx, stop := SignalContext()
	defer stop()
	code := NewMain().Exit(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// SignalContext returns a context cancelled by the signals that stop rankd gracefully: Ctrl-C, SIGTERM, and
// SIGHUP (a closed terminal, or an operator used to reloading a daemon so: rankd reads its configuration only
// at start-up), which would otherwise kill it without its shutdown. A rankd started with SIGHUP ignored
// (`nohup rankd serve &`) keeps ignoring it: its operator asked it to outlive the terminal.
func SignalContext() (context.Context, context.CancelFunc) {
	stops := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		stops = append(stops, syscall.SIGHUP)
	}
	return signal.NotifyContext(context.Background(), stops...)
}

// Exit runs the command named by args[0] as Run does, reports a failure on Stderr, and returns the exit
// status: 0 on success, 2 for a usage mistake, 130 when interrupted (Ctrl-C, SIGTERM), 1 for any other
// failure.
func (m *Main) Exit(ctx context.Context, args []string) int {
	err := m.Run(ctx, args)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		return 2
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		fmt.Fprintln(m.Stderr, "rankd: interrupted")
		return 130
	}
	// One line, as operators and scripts expect, however many failures it joins.
	fmt.Fprintln(m.Stderr, "rankd:", strings.ReplaceAll(err.Error(), "\n", "; "))
	return 1
}

// errUsage reports a usage error whose explanation has already been printed.
var errUsage = errors.New("usage")

// badFlag explains on Stderr a flag value a command cannot use, and returns errUsage: a usage mistake.
func (m *Main) badFlag(command string, err error) error {
	msg := err.Error()
	if e := (*rankd.Error)(nil); errors.As(err, &e) {
		msg = rankd.ErrorMessage(err) // without the code
	}
	fmt.Fprintf(m.Stderr, "rankd %s: %s\n", command, msg)
	return errUsage
}

// serverURL checks the --server of a command that talks to a running rankd, and returns it without a
// trailing slash: a value without its scheme would otherwise fail only at the first request, as if the
// server were unreachable.
func serverURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--server %q: want the server's URL, such as http://127.0.0.1:8080", s)
	}
	return strings.TrimRight(s, "/"), nil
}

// errHelp reports that the usage of a command was asked for (-h) and printed: Run then succeeds.
var errHelp = errors.New("help")

// parseFlags parses the flags of a command: errHelp after -h, errUsage after a mistake the flag package
// has explained.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		return errHelp
	}
	return errUsage
}

// Main runs one rankd command. Tests run it with their own streams.
type Main struct {
	Stdout io.Writer
	Stderr io.Writer
	Now    func() time.Time // the clock, read only for a contest with no start yet; nil: time.Now
}

// NewMain returns a Main writing to the process's streams.
func NewMain() *Main { return &Main{Stdout: os.Stdout, Stderr: os.Stderr, Now: time.Now} }

func (m *Main) now() time.Time {
	if m.Now == nil {
		return time.Now()
	}
	return m.Now()
}

const usage = `rankd: a real-time scoreboard for ICPC, OI/IOI and CTF contests.

Usage:
  rankd serve [--addr HOST:PORT] [--data DIR | --postgres URL [--redis URL [--redis-prefix P]]] [--config FILE] [--demo] [--tick D] [--max-body BYTES] [--max-streams N] [--finalize-rescue-after D] [--debug-addr HOST:PORT]
  rankd standings --feed FILE [--view public|jury|team:ID] [--at TIME] [--group ID] [--format text|csv|ccs]
  rankd awards --feed FILE [--view public|jury|team:ID] [--at TIME]
  rankd finalize --contest ID [--server URL] [--token T] [--wait D]
  rankd import --feed FILE [--server URL] [--token T] [--contest ID] [--batch N] [--state FILE] [--restart]
  rankd follow --from URL [--from-auth USER:PASSWORD | --from-token T] [--from-ca FILE] [--server URL] [--token T] [--contest ID] [--delay D] [--batch N]
  rankd export [--format csv|xlsx|tsv|json] [--view public|jury] [--out FILE] FEED.ndjson (or --feed FEED.ndjson)
  rankd gen [--id ID] [--teams N] [--problems N] [--submissions N] [--groups N] [--hidden N] [--seed N] [--rules icpc|oi|ioi|ctf] [--duration D] [--freeze D] [--thaw] [--out FILE]
  rankd bench --feed FILE [--json]
  rankd loadtest --contest ID --mode ingest|post|read|stream [--server URL] [--clients N] [--duration D] [--feed FILE] (ingest) [--team T --problem P] (post) [--rate N] (stream)

Run "rankd COMMAND -h" for the options of a command.
`

// Run runs the command named by args[0] with the rest of args.
func (m *Main) Run(ctx context.Context, args []string) error {
	if err := m.run(ctx, args); !errors.Is(err, errHelp) {
		return err
	}
	return nil
}

func (m *Main) run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(m.Stderr, usage)
		return errUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return m.serve(ctx, rest)
	case "standings":
		return m.standings(ctx, rest)
	case "awards":
		return m.awards(ctx, rest)
	case "export":
		return m.export(ctx, rest)
	case "import":
		return m.importFeed(ctx, rest)
	case "follow":
		return m.follow(ctx, rest)
	case "finalize":
		return m.finalize(ctx, rest)
	case "gen":
		return m.gen(ctx, rest)
	case "bench":
		return m.bench(ctx, rest)
	case "loadtest":
		return m.loadtest(ctx, rest)
	case "help", "-h", "--help":
		fmt.Fprint(m.Stdout, usage)
		return nil
	}
	fmt.Fprintf(m.Stderr, "rankd: unknown command %q\n\n%s", cmd, usage)
	return errUsage
}
