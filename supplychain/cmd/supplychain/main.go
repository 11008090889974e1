// Command supplychain attests, signs and verifies container images with
// Sigstore, keylessly. It is built and run in a container by the Shipyard
// Dagger module, so that the module's own binary does not carry sigstore-go.
//
// Usage:
//
//	supplychain attest --image REPO@sha256:… --oidc-token-file F --trusted-root F [provenance flags]
//	supplychain attest --image REPO@sha256:… --oidc-token-file F --trusted-root F --sbom F
//	supplychain sign   --image REPO@sha256:… --oidc-token-file F --trusted-root F
//	supplychain verify --image REF --certificate-identity-regexp RE --certificate-oidc-issuer URL --trusted-root F [--with-bundles]
//
// Every command takes --plain-http HOST (repeatable), the hosts plain HTTP may go to (the
// registry's, Fulcio's, Rekor's, the identity token endpoint's); every other request is
// HTTPS, and references are read strictly (the registry named), as the registry command
// reads them.
//
// Results are printed as JSON on stdout. Secrets (the registry password, the
// OIDC token, or GitHub's token request URL and bearer token, with which a step
// requests its own token right before signing) are read from files given by
// path (or the token from stdin with "-"), never from arguments or the
// environment.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"dagger/shipyard/supplychain/wire"

	"dagger/shipyard/supplychain/internal/cli"
	"dagger/shipyard/supplychain/provenance"
	"dagger/shipyard/supplychain/registry"
	"dagger/shipyard/supplychain/sbom"
	"dagger/shipyard/supplychain/signing"
	"dagger/shipyard/supplychain/steps"
	"dagger/shipyard/supplychain/verify"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, signing.NewSigner)
	stop()
	os.Exit(code)
}

// newSignerFunc makes the signer from the Fulcio and Rekor URLs, plain HTTP allowed to the
// hosts plainHTTP names; tests give one backed by an offline Sigstore.
type newSignerFunc func(fulcioURL, rekorURL string, plainHTTP ...string) (*signing.Signer, error)

const usage = `usage: supplychain <attest|sign|verify> [flags]

  attest   sign SLSA v1 build provenance (or, with --sbom, a CycloneDX SBOM) of an image digest and attach it as an OCI referrer
  sign     sign an image digest (cosign --new-bundle-format compatible) and attach it as an OCI referrer
  verify   check that an image has a valid signature and build provenance from an identity

Run "supplychain <command> -h" for the flags of a command.
`

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, newSigner newSignerFunc) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return wire.ExitUsage
	}
	var err error
	switch args[0] {
	case "attest", "sign":
		err = runPublish(ctx, args[0], args[1:], stdin, stdout, stderr, newSigner)
	case "verify":
		err = runVerify(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "supplychain: unknown command %q\n%s", args[0], usage)
		return wire.ExitUsage
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "supplychain %s: %v\n", args[0], err)
		return wire.ExitUsage
	default:
		fmt.Fprintf(stderr, "supplychain %s: %v\n", args[0], err)
		return wire.ExitFailure
	}
}

type usageError struct{ error }

// registryFlags are the registry flags shared by every command, with the hosts plain HTTP
// may go to (the registry's, Fulcio's, Rekor's), as the registry command has them.
type registryFlags struct {
	username, passwordFile string
	plainHTTP              cli.List
}

func (r *registryFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&r.username, "registry-username", "", "registry user name (anonymous when empty)")
	fs.StringVar(&r.passwordFile, "registry-password-file", "", "file holding the registry password or token")
	fs.Var(&r.plainHTTP, "plain-http", "a host (no port) plain HTTP may go to, the registry's, Fulcio's, Rekor's or the identity token endpoint's: one the traffic cannot leave the machine for (repeatable); everything else is HTTPS")
}

// checkPlainHTTP refuses a --plain-http value that is not a host alone.
func (r *registryFlags) checkPlainHTTP() error {
	for _, h := range r.plainHTTP {
		if h == "" || strings.ContainsAny(h, ":/[]") {
			return usageError{fmt.Errorf("--plain-http %q: give the host alone, without port or scheme", h)}
		}
	}
	return nil
}

// password reads the password file; trailing newlines are not part of it.
func (r *registryFlags) password() (string, error) {
	if r.passwordFile == "" {
		return "", nil
	}
	b, err := os.ReadFile(r.passwordFile)
	if err != nil {
		return "", fmt.Errorf("reading registry password file: %w", err)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

func runPublish(ctx context.Context, cmd string, args []string, stdin io.Reader, stdout, stderr io.Writer, newSigner newSignerFunc) error {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f publishFlags
	f.bind(fs, cmd)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	if cmd == "attest" {
		only := provenanceFlags()
		fs.Visit(func(fl *flag.Flag) {
			if only[fl.Name] {
				f.provenanceSet = append(f.provenanceSet, "--"+fl.Name)
			}
		})
	}
	if err := f.check(cmd); err != nil {
		return err
	}
	if err := f.reg.checkPlainHTTP(); err != nil {
		return err
	}
	// The token comes first: without a valid one nothing else happens.
	tok, err := f.token(ctx, stdin)
	if err != nil {
		return err
	}
	password, err := f.reg.password()
	if err != nil {
		return err
	}
	secrets := func(err error) error { return signing.Redact(tok.Redact(err), password) }
	remoteOpts, err := steps.Registry(f.reg.username, password, f.reg.plainHTTP...)
	if err != nil {
		return usageError{err}
	}
	signer, err := newSigner(f.fulcioURL, f.rekorURL, f.reg.plainHTTP...)
	if err != nil {
		return usageError{err}
	}
	tr, err := verify.LoadTrustedRoot(f.trustedRoot)
	if err != nil {
		return err
	}
	c := steps.Config{Image: f.image, Token: tok, Signer: signer, Remote: remoteOpts, PlainHTTP: f.reg.plainHTTP, Trusted: tr}
	var out steps.Outcome
	switch {
	case f.bom != nil:
		out, err = steps.AttestSBOM(ctx, c, f.bom)
	case cmd == "attest":
		out, err = steps.Attest(ctx, c, f.in)
	default:
		out, err = steps.Sign(ctx, c)
	}
	if err != nil {
		return secrets(err)
	}
	return wire.WriteJSON(stdout, out)
}

// publishFlags are the flags of attest and sign.
type publishFlags struct {
	reg                   registryFlags
	image, tokenFile      string
	requestURLFile        string
	requestTokenFile      string
	fulcioURL, rekorURL   string
	trustedRoot           string
	in                    provenance.Input
	buildArgs, baseImages cli.List
	platforms             cli.List
	startedOn, finishedOn string
	// sbomFile switches attest to the SBOM mode; bom is its content, read by check.
	sbomFile string
	bom      []byte
	// provenanceSet names the provenance flags given, which the SBOM mode refuses.
	provenanceSet []string
}

func (f *publishFlags) bind(fs *flag.FlagSet, cmd string) {
	f.reg.bind(fs)
	fs.StringVar(&f.image, "image", "", "image reference by digest, REPO@sha256:…")
	fs.StringVar(&f.tokenFile, "oidc-token-file", "", `file holding the OIDC identity token ("-" reads standard input)`)
	fs.StringVar(&f.requestURLFile, "oidc-token-request-url-file", "", "file holding GitHub Actions' ACTIONS_ID_TOKEN_REQUEST_URL: the token is requested (audience sigstore) right before signing, instead of --oidc-token-file")
	fs.StringVar(&f.requestTokenFile, "oidc-token-request-token-file", "", "file holding ACTIONS_ID_TOKEN_REQUEST_TOKEN, the bearer token of that request")
	fs.StringVar(&f.fulcioURL, "fulcio-url", signing.PublicGoodFulcioURL, "Fulcio URL")
	fs.StringVar(&f.rekorURL, "rekor-url", signing.PublicGoodRekorURL, "Rekor URL")
	fs.StringVar(&f.trustedRoot, "trusted-root", "", "trusted_root.json (required): an existing bundle counts as done only if it verifies against it, signed by the token's identity")
	if cmd == "attest" {
		fs.StringVar(&f.sbomFile, "sbom", "", "CycloneDX JSON SBOM of the image: attest it (predicate type https://cyclonedx.org/bom) instead of the build provenance")
		f.bindProvenance(fs)
	}
}

// provenanceFlags are the flags only the provenance mode of attest reads.
func provenanceFlags() map[string]bool {
	var f publishFlags
	probe := flag.NewFlagSet("", flag.ContinueOnError)
	f.bindProvenance(probe)
	out := map[string]bool{}
	probe.VisitAll(func(fl *flag.Flag) { out[fl.Name] = true })
	return out
}

func (f *publishFlags) bindProvenance(fs *flag.FlagSet) {
	in := &f.in
	fs.StringVar(&in.SourceRepository, "source-repository", "", "source repository URL (https://github.com/o/r)")
	fs.StringVar(&in.SourceRef, "source-ref", "", "git ref built (refs/tags/v1.0.0)")
	fs.StringVar(&in.SourceCommit, "source-commit", "", "full git commit SHA built")
	fs.StringVar(&in.Dockerfile, "dockerfile", "", "Dockerfile path in the source")
	fs.Var(&f.buildArgs, "build-arg", "build argument KEY=VALUE (repeatable)")
	fs.Var(&f.baseImages, "base-image", "base image NAME@sha256:… (repeatable)")
	fs.Var(&f.platforms, "platform", "platform built, os/arch[/variant] (repeatable: an index lists several)")
	fs.StringVar(&in.BuilderID, "builder-id", "", "builder id outside GitHub Actions")
	fs.StringVar(&in.BuildType, "build-type", "", "buildType URI outside GitHub Actions")
	fs.StringVar(&in.InvocationID, "invocation-id", "", "run id outside GitHub Actions")
	fs.StringVar(&f.startedOn, "started-on", "", "build start time, RFC 3339 (omitted when empty)")
	fs.StringVar(&f.finishedOn, "finished-on", "", "build end time, RFC 3339 (omitted when empty)")
	fs.StringVar(&in.GitHub.ServerURL, "github-server-url", "", "GITHUB_SERVER_URL")
	fs.StringVar(&in.GitHub.Repository, "github-repository", "", "GITHUB_REPOSITORY")
	fs.StringVar(&in.GitHub.RepositoryID, "github-repository-id", "", "GITHUB_REPOSITORY_ID")
	fs.StringVar(&in.GitHub.RepositoryOwnerID, "github-repository-owner-id", "", "GITHUB_REPOSITORY_OWNER_ID")
	fs.StringVar(&in.GitHub.WorkflowRef, "github-workflow-ref", "", "GITHUB_WORKFLOW_REF (set when run in GitHub Actions)")
	fs.StringVar(&in.GitHub.EventName, "github-event-name", "", "GITHUB_EVENT_NAME")
	fs.StringVar(&in.GitHub.RunID, "github-run-id", "", "GITHUB_RUN_ID")
	fs.StringVar(&in.GitHub.RunAttempt, "github-run-attempt", "", "GITHUB_RUN_ATTEMPT")
	fs.StringVar(&in.GitHub.RunnerEnvironment, "github-runner-environment", "", "RUNNER_ENVIRONMENT")
}

// requested is whether the token is requested from GitHub Actions' endpoint.
func (f *publishFlags) requested() bool {
	return f.requestURLFile != "" || f.requestTokenFile != ""
}

// check refuses missing or conflicting flags and reads attest's structured ones.
func (f *publishFlags) check(cmd string) error {
	switch {
	case f.image == "":
		return usageError{errors.New("--image is required")}
	case f.trustedRoot == "":
		return usageError{errors.New("--trusted-root is required: a bundle already attached counts as done only if it verifies against it")}
	case f.requested() && f.tokenFile != "":
		return usageError{errors.New("give either --oidc-token-file or the --oidc-token-request-* files, not both")}
	case f.requested() && (f.requestURLFile == "" || f.requestTokenFile == ""):
		return usageError{errors.New("--oidc-token-request-url-file and --oidc-token-request-token-file go together")}
	case cmd != "attest":
		return nil
	case f.sbomFile != "" && len(f.provenanceSet) > 0:
		return usageError{fmt.Errorf("--sbom attests an SBOM: the provenance flags %s do not apply to it", strings.Join(f.provenanceSet, ", "))}
	case f.sbomFile != "":
		b, err := os.ReadFile(f.sbomFile)
		if err != nil {
			return fmt.Errorf("--sbom: %w", err)
		}
		if _, err := sbom.Check(b); err != nil {
			return usageError{fmt.Errorf("--sbom %s: %w", f.sbomFile, err)}
		}
		f.bom = b
		return nil
	}
	var err error
	if f.in.BuildArgs, err = wire.ParsePairs("--build-arg", f.buildArgs); err != nil {
		return usageError{err}
	}
	if f.in.BaseImages, err = parseBaseImages(f.baseImages); err != nil {
		return usageError{err}
	}
	f.in.Platforms = f.platforms
	if f.in.StartedOn, err = parseTime("started-on", f.startedOn); err != nil {
		return usageError{err}
	}
	if f.in.FinishedOn, err = parseTime("finished-on", f.finishedOn); err != nil {
		return usageError{err}
	}
	return nil
}

// token reads the identity token given, or requests one.
func (f *publishFlags) token(ctx context.Context, stdin io.Reader) (*signing.Token, error) {
	if f.requested() {
		return requestToken(ctx, f.requestURLFile, f.requestTokenFile, f.reg.plainHTTP)
	}
	return signing.ReadToken(f.tokenFile, stdin, time.Now())
}

// requestToken asks GitHub Actions' token endpoint for a fresh identity token, reading the
// endpoint's URL and bearer token from the files Dagger mounts as secrets; plain HTTP goes
// only to the hosts plainHTTP (--plain-http) names, as every other request of the command.
func requestToken(ctx context.Context, urlFile, bearerFile string, plainHTTP []string) (*signing.Token, error) {
	read := func(path, what string) (string, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("%w: reading %s: %w", signing.ErrToken, what, err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	u, err := read(urlFile, "--oidc-token-request-url-file")
	if err != nil {
		return nil, err
	}
	bearer, err := read(bearerFile, "--oidc-token-request-token-file")
	if err != nil {
		return nil, err
	}
	return signing.TokenRequest{URL: u, BearerToken: bearer, PlainHTTP: plainHTTP}.Request(ctx, signing.SigstoreAudience, time.Now)
}

func runVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		reg                registryFlags
		image, trustedRoot string
		p                  verify.Policy
		require            cli.List
		withBundles        bool
	)
	reg.bind(fs)
	fs.StringVar(&image, "image", "", "image reference (tag or digest)")
	fs.StringVar(&trustedRoot, "trusted-root", "", "Sigstore trusted_root.json (for the public-good instance: the TUF target trusted_root.json)")
	fs.StringVar(&p.IdentityRegexp, "certificate-identity-regexp", "", "regexp the signer's certificate identity (SAN) must match")
	fs.StringVar(&p.Issuer, "certificate-oidc-issuer", "", "OIDC issuer the signer's certificate must name")
	fs.IntVar(&p.MinSCTs, "min-scts", 1, "certificate transparency timestamps required in the certificate (0 for instances without a CT log)")
	fs.BoolVar(&withBundles, "with-bundles", false, "print each verified bundle with its result")
	fs.Var(&require, "require", "predicate type that must be verified (repeatable; default: cosign signature and SLSA provenance v1; https://cyclonedx.org/bom for the SBOM)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	switch {
	case image == "":
		return usageError{errors.New("--image is required")}
	case p.IdentityRegexp == "" || p.Issuer == "":
		return usageError{errors.New("--certificate-identity-regexp and --certificate-oidc-issuer are required")}
	case trustedRoot == "":
		return usageError{errors.New("--trusted-root is required")}
	}
	if err := verify.Anchored(p.IdentityRegexp); err != nil {
		return usageError{fmt.Errorf("--certificate-identity-regexp: %w", err)}
	}
	p.RequiredPredicateTypes = require
	if err := reg.checkPlainHTTP(); err != nil {
		return err
	}
	ref, err := registry.ParseReference(image, reg.plainHTTP...)
	if err != nil {
		return usageError{fmt.Errorf("--image: %w", err)}
	}
	tr, err := verify.LoadTrustedRoot(trustedRoot)
	if err != nil {
		return err
	}
	password, err := reg.password()
	if err != nil {
		return err
	}
	remoteOpts, err := steps.Registry(reg.username, password, reg.plainHTTP...)
	if err != nil {
		return usageError{err}
	}
	res, err := verify.Image(ctx, ref, tr, p, remoteOpts...)
	if err != nil {
		return signing.Redact(err, password)
	}
	if !withBundles {
		for i := range res.Verified {
			res.Verified[i].Bundle = nil
		}
	}
	return wire.WriteJSON(stdout, res)
}

func parseBaseImages(list []string) ([]provenance.BaseImage, error) {
	var out []provenance.BaseImage
	for _, s := range list {
		n, dg, ok := strings.Cut(s, "@")
		if !ok {
			return nil, fmt.Errorf("--base-image %q is not NAME@sha256:…", s)
		}
		out = append(out, provenance.BaseImage{Name: n, Digest: dg})
	}
	return out, nil
}

func parseTime(flagName, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("--%s: %w", flagName, err)
	}
	return t, nil
}
