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

// writes are the Calls that send GitHub anything but a read (a GET): each may change what
// GitHub holds. GenerateNotes, a POST that changes nothing, is one too: treating it as a
// write costs at most a read back. A test holds the list to the requests each call sends.
var writes = map[string]bool{
	"CreateTree": true, "CreateCommit": true, "CreateBranch": true, "UpdateBranch": true, "WriteTree": true,
	"GenerateNotes": true, "CreatePullRequest": true, "EditPullRequest": true,
	"CreateRelease": true, "EditRelease": true, "DeleteRelease": true,
	"CreateOrgRepo": true, "ReplaceTopics": true, "CreateAttestation": true,
}

// IsWrite reports whether method of Calls sends GitHub a write.
func IsWrite(method string) bool { return writes[method] }

// MayHaveHappened is err, the error of a write whose request may have reached GitHub
// although err does not say so (the run that sent it was lost before it answered), marked
// so that OutcomeUnknown reports true and WriteThenVerify reads back before writing again.
// A canceled err stays as it is: the caller chose to stop.
func MayHaveHappened(err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	return &mayHaveHappened{err}
}

type mayHaveHappened struct{ err error }

func (e *mayHaveHappened) Error() string {
	return e.err.Error() + " (the write may have happened: read it back before writing it again)"
}

func (e *mayHaveHappened) Unwrap() []error { return []error{e.err, errOutcomeUnknown} }
