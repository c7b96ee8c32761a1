package http

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// The connections of a contest's public event feed that caught up with its log share one reader of it: a
// reader of the public feed holds all its filter knows of the log (ccs.FeedFilter: every team, submission and
// judgement, about 100 MB on a log of 560,000 entries), and each open connection held one. A connection reads
// the log with a reader of its own up to the end (from its token: the lines depend on all before them), then
// joins the contest's shared reader and lets its own go; the first to get there hands its reader over. The
// public feed's lines depend on the log alone, so the shared reader's lines after a connection's last one are
// those its own reader would have made. The shared reader is read on by its connections, one chunk of the
// log at a time, each by one that has every line made so far: what a connection reads waits for no one else's
// client, and no line is let go before the connection that made it has it.

// A shared reader keeps the lines it made for the connections that follow it: the last sharedFeedBytes, and
// older ones for sharedFeedKeep (a commit larger than that reaches every client that reads on), up to
// sharedFeedMaxBytes. A connection whose next line was let go (a client that stopped reading) is cut off
// and resumes with its token.
const (
	sharedFeedBytes    = 8 << 20
	sharedFeedKeep     = 10 * time.Second
	sharedFeedMaxBytes = 64 << 20
)

var (
	// errFeedBehind is the error of a connection whose next line the shared reader no longer keeps.
	errFeedBehind = errors.New("the client fell behind the shared event feed")
	// errFeedGone ends the connections of a deleted contest's feed.
	errFeedGone = errors.New("the contest was deleted")
)

// sharedFeeds are the shared readers of the public event feeds, by contest.
type sharedFeeds struct {
	mu    sync.Mutex
	feeds map[string]*sharedFeed
	// deletions are the server's: a connection that began before a deletion of its contest ends (its reader
	// is of a log that is no more, whatever a contest created again with the id logs), and joins no reader.
	deletions *deletions
}

// sharedFeed is the reader of a contest's public event feed that its caught-up connections share.
type sharedFeed struct {
	users int // with sharedFeeds.mu held
	gone  atomic.Bool

	// lock guards what follows: a channel, so that a connection waiting for another's read of the store
	// stops waiting when its client goes.
	lock   chan struct{}
	r      *feedReader
	recent []feedLines // the latest lines made, oldest first
	bytes  int         // of recent
	// err, once set, ends every connection: the log could not be read, and none can tell whether it has all.
	err error
}

// feedLines are lines of the feed made together: data, the line numbered first at starts[0], the next at
// starts[1], and so on. Never changed once made, so a connection writes them without a lock.
type feedLines struct {
	first  int64
	starts []int
	data   []byte
	made   time.Time
}

func newSharedFeed(r *feedReader) *sharedFeed {
	return &sharedFeed{r: r, lock: make(chan struct{}, 1)}
}

// join makes the connection of f, a reader of contest cid's public feed that began at generation gen, a user
// of the contest's shared reader, and returns it: it goes on after f's last line. It returns nil when the
// shared reader does not have the lines after it (not read so far yet, or no longer kept: the connection goes
// on with its own reader, and tries again later), and errFeedGone when the contest was deleted since gen. When
// the contest has no shared reader (or one that failed), f becomes it. The store is not read.
func (fs *sharedFeeds) join(cid string, gen uint64, f *feedReader) (*sharedFeed, error) {
	fs.mu.Lock()
	if fs.deletions.of(cid) != gen {
		fs.mu.Unlock()
		return nil, errFeedGone
	}
	sf := fs.feeds[cid]
	if sf != nil {
		sf.users++ // held while it is looked at: not let go meanwhile
	}
	fs.mu.Unlock()
	if sf != nil {
		// Its lock may be held by a read of the store: not waited for (fs.mu is not held either, so other
		// contests' feeds go on); this connection goes on with its own reader and tries again.
		ok, failed := false, false
		select {
		case sf.lock <- struct{}{}:
			ok, failed = sf.err == nil && sf.keeps(f.lines), sf.err != nil
			<-sf.lock
		default:
		}
		if ok {
			return sf, nil
		}
		fs.leave(cid, sf)
		if !failed {
			return nil, nil
		}
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	switch {
	case fs.deletions.of(cid) != gen:
		return nil, errFeedGone
	case fs.feeds[cid] != sf:
		return nil, nil // another took its place meanwhile: joined next time
	}
	// The shared reader must not fail with the connection that made it: what it reads again is its own.
	f.filter.Fetch = func(pos int64) ([]byte, error) { return f.fetch(context.Background(), pos) }
	f.out, f.starts = nil, nil
	sf = newSharedFeed(f)
	sf.users = 1
	if fs.feeds == nil {
		fs.feeds = map[string]*sharedFeed{}
	}
	fs.feeds[cid] = sf
	return sf, nil
}

// leave takes a connection off the shared reader of contest cid; the last one's leaving lets it go.
func (fs *sharedFeeds) leave(cid string, sf *sharedFeed) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if sf.users--; sf.users == 0 && fs.feeds[cid] == sf {
		delete(fs.feeds, cid)
	}
}

// forget drops the shared reader of a deleted contest (counted in deletions first): its connections end, as
// do those still on their own readers.
func (fs *sharedFeeds) forget(cid string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if sf := fs.feeds[cid]; sf != nil {
		sf.gone.Store(true)
		delete(fs.feeds, cid)
	}
}

// next returns the lines after line n, and the number of the last one returned. When n is the last line
// made and the log holds more than was read (pos: the board's position), it first reads one more chunk of
// it, with the connection's ctx; more says that the log may hold more still: ask again at once. A connection
// of a deleted contest gets errFeedGone; of a log that could not be read, that error; one too far behind,
// errFeedBehind.
func (sf *sharedFeed) next(ctx context.Context, n, pos int64) (lines [][]byte, last int64, more bool, err error) {
	if sf.gone.Load() {
		return nil, n, false, errFeedGone
	}
	select {
	case sf.lock <- struct{}{}:
		defer func() { <-sf.lock }()
	case <-ctx.Done():
		return nil, n, false, ctx.Err()
	}
	switch {
	case sf.err != nil:
		return nil, n, false, sf.err
	case !sf.keeps(n):
		return nil, n, false, errFeedBehind
	case n == sf.r.lines && sf.r.after < pos:
		done, err := sf.read(ctx, n)
		if err != nil {
			if ctx.Err() == nil { // a read cut short by its client's leaving leaves the reader as it was
				sf.err = err
			}
			return nil, n, false, err
		}
		more = !done
	default:
		more = sf.r.after < pos
	}
	for _, l := range sf.recent {
		if end := l.first + int64(len(l.starts)) - 1; end > n {
			lines = append(lines, l.data[l.starts[max(0, n+1-l.first)]:])
			n = end
		}
	}
	return lines, n, more, nil
}

// keeps reports whether the lines after line n are all kept, with sf.lock held.
func (sf *sharedFeed) keeps(n int64) bool {
	return n == sf.r.lines || len(sf.recent) > 0 && sf.recent[0].first <= n+1 && n <= sf.r.lines
}

// read reads the next chunk of the log, for a connection that has every line up to n, keeping the lines
// made and letting go of those it has that are no longer kept; done reports the log's end.
func (sf *sharedFeed) read(ctx context.Context, n int64) (done bool, err error) {
	first := sf.r.lines + 1
	if done, err = sf.r.read(ctx); err != nil {
		return false, err
	}
	now := time.Now()
	if len(sf.r.out) > 0 {
		sf.recent = append(sf.recent, feedLines{first: first, starts: sf.r.starts, data: sf.r.out, made: now})
		sf.bytes += len(sf.r.out)
		sf.r.out, sf.r.starts = nil, nil
	}
	for len(sf.recent) > 1 && sf.recent[0].first+int64(len(sf.recent[0].starts))-1 <= n &&
		(sf.bytes > sharedFeedMaxBytes || sf.bytes > sharedFeedBytes && now.Sub(sf.recent[0].made) > sharedFeedKeep) {
		sf.bytes -= len(sf.recent[0].data)
		sf.recent[0] = feedLines{}
		sf.recent = sf.recent[1:]
	}
	return done, nil
}
