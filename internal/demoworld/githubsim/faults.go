package githubsim

import (
	"net/http"
	"path"
	"strconv"
	"time"
)

// FaultKind selects how an injected fault answers.
type FaultKind int

const (
	// FaultStatus answers with Status (e.g. 502) and a GitHub-style error body.
	FaultStatus FaultKind = iota
	// FaultSecondaryRateLimit answers 403 (or Status 429) with GitHub's secondary rate
	// limit message and a Retry-After header.
	FaultSecondaryRateLimit
	// FaultPrimaryRateLimit answers 403 (or Status 429) with X-RateLimit-Remaining: 0 and
	// X-RateLimit-Reset ResetIn from now, as when a token's hourly budget is spent.
	FaultPrimaryRateLimit
)

// Fault describes a failure injected into matching requests.
type Fault struct {
	Kind FaultKind
	// Status is the response status: required for FaultStatus; 403 by default for the
	// rate-limit kinds (GitHub also uses 429).
	Status int
	// Times is how many matching requests fail; zero or less means every one.
	Times int
	// RetryAfter is the Retry-After of FaultSecondaryRateLimit, in whole seconds (default
	// 1s; negative omits the header, which GitHub sometimes does).
	RetryAfter time.Duration
	// ResetIn places X-RateLimit-Reset of FaultPrimaryRateLimit after the clock's now
	// (default 60s).
	ResetIn time.Duration
	// AfterEffect lets the request take effect before the fault answers: a write that
	// happened although the client saw an error (a response lost on the way back).
	AfterEffect bool
}

// BadGateway fails the next n matching requests with 502.
func BadGateway(n int) Fault {
	return Fault{Kind: FaultStatus, Status: http.StatusBadGateway, Times: n}
}

// SecondaryRateLimit answers the next n matching requests with a secondary rate limit.
func SecondaryRateLimit(n int, retryAfter time.Duration) Fault {
	return Fault{Kind: FaultSecondaryRateLimit, Times: n, RetryAfter: retryAfter}
}

// PrimaryRateLimit answers the next n matching requests as if the token's budget were spent.
func PrimaryRateLimit(n int, resetIn time.Duration) Fault {
	return Fault{Kind: FaultPrimaryRateLimit, Times: n, ResetIn: resetIn}
}

type faultRule struct {
	method  string
	pattern string
	fault   Fault
	left    int // remaining uses; < 0 means unlimited
}

// InjectFault makes requests whose method equals method ("" for any) and whose path
// matches pathPattern (path.Match syntax: "*" is one path segment, e.g.
// "/repos/*/*/releases") fail as f describes. Rules apply in the order injected.
func (s *Server) InjectFault(method, pathPattern string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	left := f.Times
	if left <= 0 {
		left = -1
	}
	s.faults = append(s.faults, &faultRule{method: method, pattern: pathPattern, fault: f, left: left})
}

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// takeFault returns the first fault that applies to r and uses it up once.
func (s *Server) takeFault(r *http.Request) *Fault {
	for _, fr := range s.faults {
		if fr.left == 0 || (fr.method != "" && fr.method != r.Method) {
			continue
		}
		if m, err := path.Match(fr.pattern, r.URL.Path); err != nil || !m {
			continue
		}
		if fr.left > 0 {
			fr.left--
		}
		f := fr.fault
		return &f
	}
	return nil
}

func (f *Fault) reply(s *Server, tok *Token) reply {
	status := f.Status
	switch f.Kind {
	case FaultSecondaryRateLimit:
		if status == 0 {
			status = http.StatusForbidden
		}
		rep := errorReply(status,
			"You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.",
			"/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits")
		rep.header = http.Header{}
		switch wait := f.RetryAfter; {
		case wait == 0:
			rep.header.Set("Retry-After", "1")
		case wait > 0:
			rep.header.Set("Retry-After", strconv.Itoa(int(wait/time.Second)))
		}
		return rep
	case FaultPrimaryRateLimit:
		if status == 0 {
			status = http.StatusForbidden
		}
		in := f.ResetIn
		if in <= 0 {
			in = time.Minute
		}
		return primaryLimitReply(status, tok.Limit, tok.used, s.now().Add(in))
	default:
		if status == 0 {
			status = http.StatusInternalServerError
		}
		return errorReply(status, http.StatusText(status), "")
	}
}
