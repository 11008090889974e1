package registry

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
)

// Auth is a registry login: a username and a password or access token, read
// from a dagger.Secret by the caller. The zero value is anonymous access.
// Its String, GoString and MarshalJSON never show the password, so an Auth
// printed by mistake leaks nothing.
type Auth struct {
	Username string
	Password string
}

const redacted = "[REDACTED]"

// String implements fmt.Stringer without the password.
func (a Auth) String() string {
	if a.anonymous() {
		return "Auth{anonymous}"
	}
	return "Auth{Username: " + a.Username + ", Password: " + redacted + "}"
}

// GoString implements fmt.GoStringer (%#v) without the password.
func (a Auth) GoString() string { return a.String() }

// MarshalJSON writes the username and a placeholder for the password.
func (a Auth) MarshalJSON() ([]byte, error) {
	shown := struct {
		Username string `json:"username,omitempty"`
		Password string `json:"password,omitempty"`
	}{Username: a.Username}
	if a.Password != "" {
		shown.Password = redacted
	}
	return json.Marshal(shown)
}

func (a Auth) anonymous() bool { return a.Username == "" && a.Password == "" }

// authenticator turns a into what go-containerregistry sends. Half a login is
// refused rather than silently sent as anonymous.
func (a Auth) authenticator() (authn.Authenticator, error) {
	switch {
	case a.anonymous():
		return authn.Anonymous, nil
	case a.Username == "":
		return nil, errors.New("registry auth has a password but no username")
	case a.Password == "":
		return nil, errors.New("registry auth has a username but no password")
	}
	return &authn.Basic{Username: a.Username, Password: a.Password}, nil
}

// secrets are the strings that must never appear in an error: the password
// and the Basic header value it travels in.
func (a Auth) secrets() []string {
	if a.Password == "" {
		return nil
	}
	basic := base64.StdEncoding.EncodeToString([]byte(a.Username + ":" + a.Password))
	return []string{a.Password, basic}
}

// scrubbedError hides credentials that a registry echoed back (for example in
// an error body) while keeping errors.Is and errors.As working.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

// Scrub returns err with every credential replaced by a placeholder.
func (a Auth) Scrub(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := msg
	for _, s := range a.secrets() {
		clean = strings.ReplaceAll(clean, s, redacted)
	}
	if clean == msg {
		return err
	}
	return &scrubbedError{msg: clean, err: err}
}
