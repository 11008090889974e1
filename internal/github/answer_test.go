package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// An error made plain data by ErrorOf, sent as JSON and made an error again by Err tells
// its caller what the original did.
func TestCallErrorRoundTrip(t *testing.T) {
	notFound := &APIError{Endpoint: "GET /repos/o/r/git/commits/c1", StatusCode: 404, Message: "Not Found"}
	exists := &APIError{Endpoint: "POST /repos/o/r/releases", StatusCode: 422, Message: "Validation Failed",
		Errors: []FieldError{{Resource: "Release", Field: "tag_name", Code: "already_exists"}}}
	badGateway := &APIError{Endpoint: "POST /repos/o/r/git/refs", StatusCode: 502, Message: "Server Error"}
	tests := []struct {
		name           string
		err            error
		is             []error
		api            *APIError
		outcomeUnknown bool
	}{
		{name: "nil"},
		{name: "a plain error", err: errors.New("boom")},
		{name: "not found", err: fmt.Errorf("commit c1: %w: %w", ErrNotFound, notFound), is: []error{ErrNotFound}, api: notFound},
		{name: "already exists", err: fmt.Errorf("release v1: %w: %w", ErrAlreadyExists, exists), is: []error{ErrAlreadyExists}, api: exists},
		{name: "not fast-forward", err: fmt.Errorf("update dev: %w", ErrNotFastForward), is: []error{ErrNotFastForward}},
		{name: "not allowed", err: fmt.Errorf("x: %w", ErrNotAllowed), is: []error{ErrNotAllowed}},
		{name: "not protected", err: fmt.Errorf("x: %w", ErrNotProtected), is: []error{ErrNotProtected}},
		{name: "refused", err: fmt.Errorf("x: %w", ErrRefused), is: []error{ErrRefused}},
		{name: "canceled", err: fmt.Errorf("x: %w", context.Canceled), is: []error{context.Canceled}},
		{name: "two at once", err: fmt.Errorf("x: %w, %w", ErrNotFound, ErrRefused), is: []error{ErrNotFound, ErrRefused}},
		{name: "a branch name git refuses", err: fmt.Errorf("o/r: %w: %w", ErrRefused, CheckBranch("../tags/v1")), is: []error{ErrRefused, ErrRefName}},
		{name: "a 5xx on a write", err: fmt.Errorf("create ref: %w", badGateway), api: badGateway, outcomeUnknown: true},
		{name: "a network error", err: fmt.Errorf("create ref: %w", context.DeadlineExceeded), outcomeUnknown: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(ErrorOf(tt.err))
			if err != nil {
				t.Fatal(err)
			}
			var ce *CallError
			if err := json.Unmarshal(b, &ce); err != nil {
				t.Fatal(err)
			}
			got := ce.Err()
			if tt.err == nil {
				if got != nil || ce != nil {
					t.Fatalf("nil crossed as %#v (%s)", got, b)
				}
				return
			}
			if got.Error() != tt.err.Error() {
				t.Errorf("message %q, want %q", got, tt.err)
			}
			for _, s := range sentinels {
				if want := slices.Contains(tt.is, s); errors.Is(got, s) != want {
					t.Errorf("errors.Is(err, %v) = %v, want %v", s, !want, want)
				}
			}
			for _, s := range tt.is {
				if !errors.Is(got, s) {
					t.Errorf("errors.Is(err, %v) = false after crossing", s)
				}
			}
			var api *APIError
			if errors.As(got, &api) != (tt.api != nil) || (tt.api != nil && !reflect.DeepEqual(api, tt.api)) {
				t.Errorf("APIError %+v, want %+v", api, tt.api)
			}
			if OutcomeUnknown(got) != tt.outcomeUnknown || OutcomeUnknown(tt.err) != tt.outcomeUnknown {
				t.Errorf("OutcomeUnknown %v after crossing, %v before, want %v", OutcomeUnknown(got), OutcomeUnknown(tt.err), tt.outcomeUnknown)
			}
			if NoAccess(got) != NoAccess(tt.err) || IsAlreadyExists(got) != IsAlreadyExists(tt.err) || StatusOf(got) != StatusOf(tt.err) {
				t.Errorf("NoAccess, IsAlreadyExists, StatusOf differ after crossing")
			}
		})
	}
}

// The same error is the same data, so the command's answer is the same bytes each time.
func TestErrorOfIsDeterministic(t *testing.T) {
	err := fmt.Errorf("x: %w %w %w %w", ErrRefused, ErrNotFound, context.Canceled, ErrAlreadyExists)
	first, _ := json.Marshal(ErrorOf(err))
	for range 50 {
		if b, _ := json.Marshal(ErrorOf(err)); string(b) != string(first) {
			t.Fatalf("ErrorOf gave %s, then %s", first, b)
		}
	}
}
