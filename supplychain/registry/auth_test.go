package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
)

func TestAuthNeverPrintsThePassword(t *testing.T) {
	b, err := json.Marshal(testAuth)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		fmt.Sprint(testAuth), fmt.Sprintf("%v", testAuth), fmt.Sprintf("%+v", testAuth),
		fmt.Sprintf("%#v", testAuth), fmt.Sprintf("%s", &testAuth), string(b),
	} {
		if strings.Contains(s, testAuth.Password) {
			t.Errorf("printed Auth leaks the password: %s", s)
		}
		if !strings.Contains(s, testAuth.Username) {
			t.Errorf("printed Auth lost the username: %s", s)
		}
	}
}

func TestAuthenticator(t *testing.T) {
	tests := []struct {
		name    string
		auth    Auth
		wantErr bool
	}{
		{name: "anonymous", auth: Auth{}},
		{name: "login", auth: testAuth},
		{name: "username only", auth: Auth{Username: "bot"}, wantErr: true},
		{name: "password only", auth: Auth{Password: testAuth.Password}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := tt.auth.authenticator()
			if (err != nil) != tt.wantErr {
				t.Fatalf("authenticator error = %v, want error %v", err, tt.wantErr)
			}
			assertNoSecret(t, err, tt.auth)
			if err != nil {
				return
			}
			cfg, err := a.Authorization()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Username != tt.auth.Username || cfg.Password != tt.auth.Password {
				t.Errorf("authenticator sends %q", cfg.Username)
			}
		})
	}
}

func TestCredentialsAreSentAndNeverLeak(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("img")
	img := randomImage(t)
	ctx := t.Context()

	// The right login works, and every request but the first ping carries it.
	if _, err := PushByDigest(ctx, repo, img, reg.auth, reg.opts()...); err != nil {
		t.Fatal(err)
	}
	reg.mu.Lock()
	sent := reg.withAuth
	reg.mu.Unlock()
	if sent == 0 {
		t.Fatal("no request carried the credentials")
	}

	var errs []error
	collect := func(_ string, err error) {
		if err == nil {
			t.Error("expected an error")
		}
		errs = append(errs, err)
	}
	wrong := Auth{Username: testAuth.Username, Password: "wr0ng-" + testAuth.Password}
	_, err := PushByDigest(ctx, repo, randomImage(t), wrong, reg.opts()...)
	collect("push with a wrong password", err)
	_, err = ResolveTags(ctx, repo, []string{"dev"}, wrong, reg.opts()...)
	collect("resolve with a wrong password", err)
	_, err = Digest(ctx, repo+":dev", wrong, reg.opts()...)
	collect("digest with a wrong password", err)
	_, err = Tags(ctx, repo, wrong, reg.opts()...)
	collect("tags with a wrong password", err)
	for _, e := range errs {
		assertNoSecret(t, e, wrong)
	}

	// A hostile or buggy registry echoes the Authorization header back, with
	// a status that is not retried, so its body reaches the error.
	reg.mu.Lock()
	reg.echoHeaders, reg.failStatus = true, http.StatusBadRequest
	reg.mu.Unlock()
	reg.failFirst(1000, func(r *http.Request) bool { return r.Method != http.MethodGet || r.URL.Path != "/v2/" })
	d := digestOf(t, img)
	_, err = PushByDigest(ctx, repo, randomImage(t), reg.auth, reg.opts()...)
	collect("push to an echoing registry", err)
	_, err = Digest(ctx, repo+"@"+d, reg.auth, reg.opts()...)
	collect("digest from an echoing registry", err)
	_, err = Tags(ctx, repo, reg.auth, reg.opts()...)
	collect("tags from an echoing registry", err)
	plan, perr := PlanTags(tesk, repo, d, []string{"dev"}, nil)
	if perr != nil {
		t.Fatal(perr)
	}
	_, err = ApplyTags(ctx, tesk, repo, d, plan, reg.auth, nil, reg.opts()...)
	collect("apply to an echoing registry", err)
	if reg.failures() == 0 {
		t.Fatal("the echoing registry never answered")
	}
	for _, e := range errs {
		assertNoSecret(t, e, reg.auth)
	}
	// The echo reached an error and was scrubbed, the rest of it kept.
	scrubbed := false
	for _, e := range errs {
		scrubbed = scrubbed || strings.Contains(e.Error(), "injected failure for Basic "+redacted)
	}
	if !scrubbed {
		t.Errorf("no error shows the scrubbed echo: %v", errs)
	}
}

func TestScrubKeepsErrorChains(t *testing.T) {
	sentinel := errors.New("sentinel")
	err := testAuth.Scrub(fmt.Errorf("server said %s: %w", testAuth.Password, sentinel))
	assertNoSecret(t, err, testAuth)
	if !errors.Is(err, sentinel) {
		t.Error("scrubbed error lost its chain")
	}
	plain := errors.New("nothing secret")
	if testAuth.Scrub(plain) != plain {
		t.Error("an error without secrets was rewrapped")
	}
	if (Auth{}).Scrub(plain) != plain || testAuth.Scrub(nil) != nil {
		t.Error("scrub changed what it had nothing to scrub")
	}
}

// TestPlainHTTPIsRefusedForNonLoopbackRegistries sends every connection to
// the plain-HTTP test registry whatever the host, as a network would if the
// registry were elsewhere. go-containerregistry alone would fall back to
// HTTP for private addresses and *.local names; here only the host
// WithPlainHTTP names (the test registry's loopback address) may.
func TestPlainHTTPIsRefusedForNonLoopbackRegistries(t *testing.T) {
	reg := newTestRegistry(t)
	addr := reg.srv.Listener.Addr().String()
	var dialer net.Dialer
	everythingToTheTestRegistry := &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, addr)
		},
	}
	opts := append(reg.opts(), WithTransport(everythingToTheTestRegistry))
	tests := []struct {
		host        string
		wantRefusal bool // refused by the HTTP guard, not only by a failed TLS handshake
	}{
		{host: "10.20.30.40:5000", wantRefusal: true},
		{host: "192.168.1.10:5000", wantRefusal: true},
		// go-containerregistry v0.21.7 tries HTTPS first for *.local and stops at
		// its failure; nothing reaches the registry either way.
		{host: "registry.local:5000"},
		{host: "registry.example.test:5000"},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			mark := reg.mark()
			repo := tt.host + "/org/img"
			_, err := PushByDigest(t.Context(), repo, randomImage(t), reg.auth, opts...)
			if err == nil {
				t.Fatal("pushed over plain HTTP to a non-loopback host")
			}
			if errors.Is(err, ErrPlainHTTP) != tt.wantRefusal {
				t.Errorf("error = %v; refused by the guard: %v, want %v", err, errors.Is(err, ErrPlainHTTP), tt.wantRefusal)
			}
			assertNoSecret(t, err, reg.auth)
			reg.mu.Lock()
			reached := reg.requests[mark:]
			reg.mu.Unlock()
			if len(reached) != 0 {
				t.Errorf("requests reached the registry over plain HTTP: %v", reached)
			}
		})
	}

	// The same transport to the loopback address works.
	if _, err := PushByDigest(t.Context(), reg.repo("img"), randomImage(t), reg.auth, opts...); err != nil {
		t.Errorf("loopback push: %v", err)
	}
}

func TestReferencesAreParsedStrictly(t *testing.T) {
	tests := []struct {
		ref       string
		plainHTTP string // the host the caller lets plain HTTP go to
		repoOK    bool
		insecure  bool
	}{
		{ref: "127.0.0.1:5000/org/img", plainHTTP: "127.0.0.1", repoOK: true, insecure: true},
		{ref: "localhost:5000/org/img", plainHTTP: "localhost", repoOK: true, insecure: true},
		{ref: "[::1]:5000/org/img", plainHTTP: "::1", repoOK: true, insecure: true},
		{ref: "10.87.0.1:5000/org/img", plainHTTP: "10.87.0.1", repoOK: true, insecure: true},
		{ref: "127.0.0.1:5000/org/img", repoOK: true},
		{ref: "10.0.0.1:5000/org/img", plainHTTP: "127.0.0.1", repoOK: true},
		{ref: "docker.io/elixircloud/tesk-core-filer", plainHTTP: "127.0.0.1", repoOK: true},
		{ref: "10.0.0.1:5000/org/img", repoOK: true},
		{ref: "elixircloud/tesk-core-filer"}, // the registry must be explicit
		{ref: "docker.io/org/img:dev"},
		{ref: "docker.io/Org/img"},
		{ref: "user:pass@docker.io/org/img"},
		{ref: ""},
	}
	for _, tt := range tests {
		t.Run(tt.ref+" "+tt.plainHTTP, func(t *testing.T) {
			r, err := parseRepository(tt.ref, tt.plainHTTP)
			if (err == nil) != tt.repoOK {
				t.Fatalf("parseRepository error = %v, want ok %v", err, tt.repoOK)
			}
			if err != nil {
				if strings.Contains(tt.ref, "pass") && strings.Contains(err.Error(), "pass") {
					t.Errorf("error echoes the credentials: %v", err)
				}
				return
			}
			// go-containerregistry picks http for private addresses by itself; the
			// transport's guard is what keeps plain HTTP to the named host.
			guard := PlainHTTPOnly(roundTripFunc(func(*http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody}, nil
			}), tt.plainHTTP)
			req, _ := http.NewRequest(http.MethodGet, "http://"+r.RegistryStr()+"/v2/", nil)
			resp, err := guard.RoundTrip(req)
			if resp != nil {
				resp.Body.Close()
			}
			if insecure := err == nil; insecure != tt.insecure || (err != nil && !errors.Is(err, ErrPlainHTTP)) {
				t.Errorf("%s: plain HTTP allowed = %v (%v), want %v", tt.ref, insecure, err, tt.insecure)
			}
		})
	}
}

// Every call starts with connect: a bad address is refused before the login is looked
// at, a bad login before any request, and a good pair gives the parsed address and a
// client holding the jobs limit.
func TestConnect(t *testing.T) {
	tests := []struct {
		name    string
		repo    string
		auth    Auth
		wantErr string
	}{
		{name: "repository and anonymous", repo: "127.0.0.1:5000/org/img"},
		{name: "repository and login", repo: "127.0.0.1:5000/org/img", auth: Auth{Username: "u", Password: "p"}},
		{name: "no registry", repo: "org/img", auth: Auth{Password: "p"}, wantErr: "want <registry>/<org>/<name>"},
		{name: "password without user", repo: "127.0.0.1:5000/org/img", auth: Auth{Password: "p"}, wantErr: "no username"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, c, err := connect(parseRepository, tt.repo, tt.auth, []Option{func(c *config) { c.jobs = 2 }})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || c != nil {
					t.Fatalf("connect = %v, %v; want no client and an error containing %q", c, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.String() != tt.repo || c == nil || c.jobs != 2 {
				t.Errorf("connect = %s, %+v; want %s and a client with 2 jobs", r, c, tt.repo)
			}
		})
	}
	ref, c, err := connect(parseReference, "127.0.0.1:5000/org/img:1.0", Auth{}, nil)
	if err != nil || ref.Identifier() != "1.0" || c.jobs != defaultJobs {
		t.Errorf("connect(parseReference) = %v, %v, %v", ref, c, err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
