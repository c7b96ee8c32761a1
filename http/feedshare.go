package http

import (
	"context"
	"errors"
	"sync"
)

// The connections of a contest's public event feed that caught up with its log share one reader of it: a
// reader of the public feed holds all its filter knows of the log (ccs.FeedFilter: every team, submission and
// judgement, about 100 MB on a log of 560,000 entries), and each open connection held one. A connection reads
// the log with a reader of its own up to the end (from its token: the lines depend on all before them), then
// joins the contest's shared reader and lets its own go; the first to get there hands its reader over. The
// public feed's lines depend on the log alone, so the shared reader's lines after a connection's last one are
// those its own reader would have made.

// sharedFeedBytes bounds the latest lines a shared reader keeps for the connections that follow it: one that
// falls further behind (a client that does not read) is cut off and resumes with its token.
const sharedFeedBytes = 8 << 20

// errFeedBehind is the error of a connection whose next line the shared reader no longer keeps.
var errFeedBehind = errors.New("the client fell behind the shared event feed")

// sharedFeeds are the shared readers of the public event feeds, by contest.
type sharedFeeds struct {
	mu    sync.Mutex
	feeds map[string]*sharedFeed
}

// sharedFeed is the reader of a contest's public event feed that its caught-up connections share.
type sharedFeed struct {
	mu     sync.Mutex
	r      *feedReader
	recent []feedLines // the latest lines made, oldest first
	bytes  int         // of recent
	users  int         // with sharedFeeds.mu held
	// err, once set, ends every connection: the log could not be read, or the contest was deleted.
	err error
}

// feedLines are lines of the feed made together: data, the line numbered first at starts[0], the next at
// starts[1], and so on. Never changed once made, so a connection writes them without a lock.
type feedLines struct {
	first  int64
	starts []int
	data   []byte
}

// join makes the connection of f, a reader of contest cid's public feed at the end of its log (as far as f
// knows), a user of the contest's shared reader, and returns it with the number of f's last line, after
// which the connection goes on; nil when the shared reader no longer keeps the lines after it (the connection
// goes on with its own reader, and tries again later). When the contest has no shared reader, f becomes it.
func (fs *sharedFeeds) join(ctx context.Context, cid string, f *feedReader) *sharedFeed {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if sf := fs.feeds[cid]; sf != nil {
		sf.mu.Lock()
		defer sf.mu.Unlock()
		if sf.err == nil && sf.r.after < f.after {
			sf.err = sf.advance(ctx)
		}
		if sf.err == nil {
			if !sf.keeps(f.lines) {
				return nil
			}
			sf.users++
			return sf
		}
		// A reader that failed is let go: its connections end, and this one's takes its place.
	}
	// The shared reader must not fail with the connection that made it: its store reads are its own.
	f.filter.Fetch = func(pos int64) ([]byte, error) { return f.fetch(context.Background(), pos) }
	f.out, f.starts = nil, nil
	sf := &sharedFeed{r: f, users: 1}
	if fs.feeds == nil {
		fs.feeds = map[string]*sharedFeed{}
	}
	fs.feeds[cid] = sf
	return sf
}

// leave takes a connection off the shared reader of contest cid; the last one's leaving lets it go.
func (fs *sharedFeeds) leave(cid string, sf *sharedFeed) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if sf.users--; sf.users == 0 && fs.feeds[cid] == sf {
		delete(fs.feeds, cid)
	}
}

// forget drops the shared reader of a deleted contest: its connections end.
func (fs *sharedFeeds) forget(cid string) {
	fs.mu.Lock()
	sf := fs.feeds[cid]
	delete(fs.feeds, cid)
	fs.mu.Unlock()
	if sf != nil {
		sf.mu.Lock()
		sf.err = errFeedGone
		sf.mu.Unlock()
	}
}

// errFeedGone ends the connections of a deleted contest's feed.
var errFeedGone = errors.New("the contest was deleted")

// next returns the lines after line n, having read the log up to position pos first if it has not, and the
// number of the last line returned. A client of a deleted contest gets errFeedGone; of a log that could not be
// read, that error (for every connection: none can tell whether it has all); one too far behind errFeedBehind.
func (sf *sharedFeed) next(ctx context.Context, n, pos int64) ([][]byte, int64, error) {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if sf.err == nil && sf.r.after < pos {
		sf.err = sf.advance(ctx)
	}
	if sf.err != nil {
		return nil, n, sf.err
	}
	if !sf.keeps(n) {
		return nil, n, errFeedBehind
	}
	var out [][]byte
	for _, l := range sf.recent {
		if last := l.first + int64(len(l.starts)) - 1; last > n {
			out = append(out, l.data[l.starts[max(0, n+1-l.first)]:])
			n = last
		}
	}
	return out, n, nil
}

// keeps reports whether the lines after line n are all kept, with sf.mu held.
func (sf *sharedFeed) keeps(n int64) bool {
	return n == sf.r.lines || len(sf.recent) > 0 && sf.recent[0].first <= n+1 && n <= sf.r.lines
}

// advance reads the log to its end, keeping the lines made, with sf.mu held. Its store reads do not stop
// with the connection that asked for them: a reader left in the middle of an entry could not go on.
func (sf *sharedFeed) advance(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	for {
		first := sf.r.lines + 1
		done, err := sf.r.read(ctx)
		if err != nil {
			return err
		}
		if len(sf.r.out) > 0 {
			sf.recent = append(sf.recent, feedLines{first: first, starts: sf.r.starts, data: sf.r.out})
			sf.bytes += len(sf.r.out)
			sf.r.out, sf.r.starts = nil, nil
			for len(sf.recent) > 1 && sf.bytes > sharedFeedBytes {
				sf.bytes -= len(sf.recent[0].data)
				sf.recent = sf.recent[1:]
			}
		}
		if done {
			return nil
		}
	}
}
