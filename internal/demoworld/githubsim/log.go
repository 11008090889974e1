package githubsim

import (
	"net/http"
	"path"
)

// Request is one logged request and how the simulator answered it.
type Request struct {
	Method string
	Path   string
	Query  string // raw query string
	Status int
	// Conditional is true when the request carried If-None-Match.
	Conditional bool
	// NotModified is true when it was answered 304.
	NotModified bool
	// Fault is true when an injected fault answered it.
	Fault bool
}

// Requests returns every request answered so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// Writes returns the requests that were not reads (GET or HEAD).
func (s *Server) Writes() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			out = append(out, r)
		}
	}
	return out
}

// Count returns how many requests matched method ("" for any) and pathPattern (path.Match
// syntax; "" for any path).
func (s *Server) Count(method, pathPattern string) int {
	n := 0
	for _, r := range s.Requests() {
		if method != "" && r.Method != method {
			continue
		}
		if pathPattern != "" {
			if m, err := path.Match(pathPattern, r.Path); err != nil || !m {
				continue
			}
		}
		n++
	}
	return n
}

// ResetLog forgets the requests logged so far.
func (s *Server) ResetLog() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = nil
}
