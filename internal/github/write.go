package github

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
)

// OutcomeUnknown reports whether err leaves open whether a write took effect: a 5xx
// answer (e.g. a gateway that lost the response) or a transport failure after sending.
// Cancellation by the caller is not unknown in this sense: the caller chose to stop.
func OutcomeUnknown(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, ErrRefused) {
		return false
	}
	if errors.Is(err, errOutcomeUnknown) {
		return true
	}
	if code := StatusOf(err); code != 0 {
		return code >= 500 && code != http.StatusNotImplemented
	}
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded)
}
