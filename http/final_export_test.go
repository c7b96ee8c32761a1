package http

import "time"

// ForgetFinals empties the final standings kept in memory and the rendered pages, as a server that just
// started has them: the next reader of final standings loads them.
func (s *Server) ForgetFinals() {
	s.finals.mu.Lock()
	s.finals.entries = nil
	s.finals.mu.Unlock()
	s.pages.mu.Lock()
	s.pages.m, s.pages.size = nil, 0
	s.pages.mu.Unlock()
}

// TakePastTurns takes every turn of the past's work, as that many builds running would, until release is
// called; meanwhile a reader of another moment waits at most wait.
func (s *Server) TakePastTurns(wait time.Duration) (release func()) {
	s.pasts.wait.Store(int64(wait))
	for range maxPastWork {
		_, _ = s.pasts.work(func() (any, error) { return nil, nil }) // makes the turns
	}
	for range maxPastWork {
		s.pasts.turns <- struct{}{}
	}
	return func() {
		for range maxPastWork {
			<-s.pasts.turns
		}
		s.pasts.wait.Store(0)
	}
}
