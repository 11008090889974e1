package registry

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// Option adjusts how this package talks to a registry.
type Option func(*config)

type config struct {
	transport   http.RoundTripper
	backoff     *remote.Backoff
	jobs        int
	stillNewest StillNewest
	plainHTTP   string
}

func newConfig(opts []Option) config {
	cfg := config{transport: remote.DefaultTransport, jobs: defaultJobs}
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

// WithPlainHTTP lets plain HTTP go to the registry host (a host name or IP, without port),
// and to no other. Without it every request is HTTPS. The caller decides where the traffic
// cannot leave the machine (Shipyard: a loopback address or the Dagger engine's gateway,
// its package plainhttp); credentials travel with the requests.
func WithPlainHTTP(host string) Option {
	return func(c *config) { c.plainHTTP = host }
}

// WithStillNewest gives ApplyTags the recheck it asks right before the branch tag moves
// (StillNewestOnBranch decides it); other calls ignore it.
func WithStillNewest(f StillNewest) Option {
	return func(c *config) { c.stillNewest = f }
}

// WithTransport sets the HTTP transport (a proxy, custom TLS roots). Plain
// HTTP to a non-loopback host is refused whatever the transport.
func WithTransport(rt http.RoundTripper) Option {
	return func(c *config) { c.transport = rt }
}

// withBackoff shortens go-containerregistry's retries (1s, then 3s) in tests.
func withBackoff(b remote.Backoff) Option {
	return func(c *config) { c.backoff = &b }
}

// ErrPlainHTTP is returned when a request would send plain HTTP (and with it
// any credentials) to a host that WithPlainHTTP did not name.
var ErrPlainHTTP = errors.New("refusing plain HTTP to a registry that is not on this machine (loopback or the Dagger engine's gateway)")

// defaultJobs bounds the requests in flight per call (tag lookups, blobs),
// which keeps us polite to rate-limited registries such as Docker Hub.
const defaultJobs = 4

// client holds one login's puller and pusher, so one call pings and
// authenticates once per repository, not once per request.
type client struct {
	jobs      int
	plainHTTP string
	puller    *remote.Puller
	pusher    *remote.Pusher
}

func newClient(auth Auth, cfg config) (*client, error) {
	authenticator, err := auth.authenticator()
	if err != nil {
		return nil, err
	}
	ropts := []remote.Option{
		remote.WithAuth(authenticator),
		remote.WithTransport(PlainHTTPOnly(cfg.transport, cfg.plainHTTP)),
		remote.WithJobs(cfg.jobs),
	}
	if cfg.backoff != nil {
		ropts = append(ropts, remote.WithRetryBackoff(*cfg.backoff))
	}
	puller, err := remote.NewPuller(ropts...)
	if err != nil {
		return nil, fmt.Errorf("registry client: %w", err)
	}
	pusher, err := remote.NewPusher(ropts...)
	if err != nil {
		return nil, fmt.Errorf("registry client: %w", err)
	}
	return &client{jobs: cfg.jobs, plainHTTP: cfg.plainHTTP, puller: puller, pusher: pusher}, nil
}

// connect reads where a call goes with parse (parseRepository or parseReference) and makes
// the client that talks to it: the start of every call on one repository.
func connect[T any](parse func(string, string) (T, error), where string, auth Auth, opts []Option) (T, *client, error) {
	cfg := newConfig(opts)
	r, err := parse(where, cfg.plainHTTP)
	if err != nil {
		return r, nil, err
	}
	c, err := newClient(auth, cfg)
	if err != nil {
		return r, nil, err
	}
	return r, c, nil
}

// PlainHTTPOnly wraps base so that it refuses plain HTTP except to hosts (host names or
// IPs, without port; empty ones name nothing): what WithPlainHTTP names here, and what
// --plain-http names in the signing command. pkg/name alone would fall back to HTTP for
// loopback, RFC 1918 and *.local registries too, where a Basic header would cross the
// network in clear text.
func PlainHTTPOnly(base http.RoundTripper, hosts ...string) http.RoundTripper {
	return plainHTTPOnlyTo{hosts: hosts, base: base}
}

type plainHTTPOnlyTo struct {
	hosts []string
	base  http.RoundTripper
}

func (t plainHTTPOnlyTo) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme != "https" && !PlainHTTPAllowed(r.URL.Hostname(), t.hosts) {
		if r.Body != nil {
			_ = r.Body.Close() // a RoundTripper must close the body, even on error
		}
		return nil, fmt.Errorf("%w: %s", ErrPlainHTTP, r.URL.Host)
	}
	return t.base.RoundTrip(r)
}

// PlainHTTPAllowed is whether plain HTTP may go to host: one of hosts names it.
func PlainHTTPAllowed(host string, hosts []string) bool {
	return host != "" && slices.Contains(hosts, host)
}

// registryHost is the host of a registry string such as 127.0.0.1:5000.
func registryHost(registry string) string {
	u, err := url.Parse("//" + registry)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// checkNoUserinfo refuses "user:pass@host/..." without echoing it: such a
// reference would otherwise end up in an error message.
func checkNoUserinfo(ref string) error {
	host, _, _ := strings.Cut(ref, "/")
	if strings.Contains(host, "@") {
		return errors.New("reference must be <registry>/<repository>[:tag|@digest] and must not carry credentials: give them as Auth")
	}
	return nil
}

// parseRepository reads <registry>/<org>/<name>: the registry is required
// (no silent Docker Hub default) and a tag or digest is refused. Plain HTTP is
// tried only when the registry's host is plainHTTP.
func parseRepository(repo, plainHTTP string) (name.Repository, error) {
	if err := checkNoUserinfo(repo); err != nil {
		return name.Repository{}, err
	}
	r, err := name.NewRepository(repo, name.StrictValidation)
	if err != nil {
		return name.Repository{}, fmt.Errorf("repository %q (want <registry>/<org>/<name>, no tag): %w", repo, err)
	}
	if PlainHTTPAllowed(registryHost(r.RegistryStr()), []string{plainHTTP}) {
		return name.NewRepository(repo, name.StrictValidation, name.Insecure)
	}
	return r, nil
}

// parseReference reads <registry>/<repo>:<tag> or <registry>/<repo>@<digest>,
// both explicit (no default "latest"), with plain HTTP tried only when the registry's
// host is plainHTTP.
func parseReference(ref, plainHTTP string) (name.Reference, error) {
	return ParseReference(ref, plainHTTP)
}

// ParseReference reads <registry>/<repo>:<tag> or <registry>/<repo>@<digest> strictly: the
// registry and the tag or digest explicit, no credentials in it. Plain HTTP is tried only
// when the registry's host is one of plainHTTP. The registry command and the signing
// command read every reference so.
func ParseReference(ref string, plainHTTP ...string) (name.Reference, error) {
	if err := checkNoUserinfo(ref); err != nil {
		return nil, err
	}
	r, err := name.ParseReference(ref, name.StrictValidation)
	if err != nil {
		return nil, fmt.Errorf("reference %q (want <registry>/<repo>:<tag> or @sha256:…): %w", ref, err)
	}
	if PlainHTTPAllowed(registryHost(r.Context().RegistryStr()), plainHTTP) {
		return name.ParseReference(ref, name.StrictValidation, name.Insecure)
	}
	return r, nil
}

func isNotFound(err error) bool {
	var terr *transport.Error
	return errors.As(err, &terr) && terr.StatusCode == http.StatusNotFound
}
