package http

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
