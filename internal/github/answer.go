package github

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
)

// Answer is what the GitHub command prints for one of the Calls: the call's results (all
// but its error, in order, as JSON), or the error; and what the client sent to get it.
type Answer struct {
	Results []json.RawMessage `json:"results,omitempty"`
	Error   *CallError        `json:"error,omitempty"`
	Stats   Stats             `json:"stats"`
	// Notes are what the caller's user should know of how the call was made, beyond its
	// result: an ETag cache that was not read, used or saved, or entries of it dropped.
	// The call went on without them, at the cost of full requests.
	Notes []string `json:"notes,omitempty"`
}

// Request is one call of a batch the GitHub command performs at once: a method of Calls
// and its arguments after the context, each as JSON.
type Request struct {
	Method string            `json:"method"`
	Args   []json.RawMessage `json:"args"`
}

// BatchAnswer is what the GitHub command prints for a batch of Requests: each call's
// Answer, in the order asked (its results or its error), and what the batch's client sent
// and noted for all of them, which they share.
type BatchAnswer struct {
	Answers []Answer `json:"answers"`
	Stats   Stats    `json:"stats"`
	Notes   []string `json:"notes,omitempty"`
}

// CallError is an error of one of the Calls as plain data: its message, GitHub's answer
// when there was one, and the errors of this package it wraps, so the caller in another
// process tells them apart as the client's own caller does (errors.Is, errors.As,
// NoAccess, OutcomeUnknown).
type CallError struct {
	Message string    `json:"message"`
	API     *APIError `json:"api,omitempty"`
	// Is names the sentinel errors of this package the error wraps (see sentinels).
	Is []string `json:"is,omitempty"`
	// OutcomeUnknown is OutcomeUnknown's verdict on the error: a write may have happened.
	OutcomeUnknown bool `json:"outcomeUnknown,omitempty"`
}

// sentinels are the errors of this package a CallError carries by name.
var sentinels = map[string]error{
	"not-found":        ErrNotFound,
	"already-exists":   ErrAlreadyExists,
	"not-fast-forward": ErrNotFastForward,
	"not-allowed":      ErrNotAllowed,
	"not-protected":    ErrNotProtected,
	"refused":          ErrRefused,
	"ref-name":         ErrRefName,
	"canceled":         context.Canceled,
}

// errOutcomeUnknown marks an error that crossed as a CallError whose outcome was unknown
// (a network error, say, that has no GitHub answer to judge it by).
var errOutcomeUnknown = errors.New("outcome unknown")

// ErrorOf is err as plain data; nil for nil.
func ErrorOf(err error) *CallError {
	if err == nil {
		return nil
	}
	ce := &CallError{Message: err.Error(), OutcomeUnknown: OutcomeUnknown(err)}
	var api *APIError
	if errors.As(err, &api) {
		ce.API = api
	}
	for name, s := range sentinels {
		if errors.Is(err, s) {
			ce.Is = append(ce.Is, name)
		}
	}
	// In a fixed order, so the same error is the same answer, not one of a map's orders.
	slices.Sort(ce.Is)
	return ce
}

// Err is the error ce describes: its message, wrapping what ce names.
func (ce *CallError) Err() error {
	if ce == nil {
		return nil
	}
	e := &crossedError{msg: ce.Message}
	if ce.API != nil {
		e.wrapped = append(e.wrapped, ce.API)
	}
	for _, name := range ce.Is {
		if s, ok := sentinels[name]; ok {
			e.wrapped = append(e.wrapped, s)
		}
	}
	if ce.OutcomeUnknown {
		e.wrapped = append(e.wrapped, errOutcomeUnknown)
	}
	return e
}

// crossedError is an error that crossed from the GitHub command.
type crossedError struct {
	msg     string
	wrapped []error
}

func (e *crossedError) Error() string   { return e.msg }
func (e *crossedError) Unwrap() []error { return e.wrapped }
