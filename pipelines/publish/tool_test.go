package publish_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/flowexecs"
	"dagger/shipyard/internal/trust"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// The tools are built from the repository's supplychain folder in the pinned Go image with
// the same module and build caches, each command once: the signing execs get the binary
// only, and their secrets as files; each registry exec is told apart from every other (the
// engine must not answer it from its cache), its login a file too.
func TestToolAndSigningGraph(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newEnv(t, w)
	pushed := v.pushed(t)
	if _, err := publish.Sign(ctx, "sign", v.sign, v.target, pushed); err != nil {
		t.Fatal(err)
	}
	g := v.e.Graph()

	builds := g.ExecsWith("go build")
	if len(builds) != 2 {
		t.Fatalf("go build ran %d times, want once per command for both images", len(builds))
	}
	var built []string
	cacheKeys := map[string]bool{}
	for _, b := range builds {
		if b.Image != publish.DefaultGoImage || b.Env["CGO_ENABLED"] != "0" {
			t.Errorf("build exec %+v", b)
		}
		built = append(built, strings.Join(b.Args, " "))
		var caches []string
		for _, m := range b.Mounts {
			if m.Kind == "withMountedCache" {
				caches = append(caches, m.Path)
				cacheKeys[m.Cache] = true
			}
			if m.Path == "/src" && !strings.Contains(m.Source, "_test.go") {
				t.Errorf("the build source is not filtered of tests: %s", m.Source)
			}
		}
		if !slices.Contains(caches, "/go/pkg/mod") || !slices.Contains(caches, "/root/.cache/go-build") {
			t.Errorf("build caches %v", caches)
		}
	}
	// The signing tool is built with the registry command (a signing function's registry
	// work runs it); the registry command alone, for the steps that do not sign.
	slices.Sort(built)
	if want := []string{flowexecs.RegistryTool, flowexecs.SigningTool}; !slices.Equal(built, want) || len(cacheKeys) != 2 {
		t.Errorf("built %v with caches %v, want %v with the same two caches", built, cacheKeys, want)
	}
	runs := map[string]bool{}
	for _, x := range g.ExecsWith("registry ") {
		if x.Args[0] != "registry" {
			continue
		}
		runs[x.Env["SHIPYARD_REGISTRY_RUN"]] = true
		for _, s := range x.Secrets {
			if s.Env != "" || s.Path == "" {
				t.Errorf("registry secret %+v is not a file", s)
			}
		}
	}
	if len(runs) < 2 || runs[""] {
		t.Errorf("registry execs told apart by %v, want a value of their own each", runs)
	}

	signs := g.ExecsWith("supplychain sign")
	if len(signs) != 2 {
		t.Fatalf("sign execs %d, want one per image", len(signs))
	}
	for _, x := range signs {
		// The registry and the test Sigstore listen on loopback without TLS: the command
		// may send plain HTTP there, once named, and nowhere else.
		if args := strings.Join(x.Args, " "); strings.Count(args, "--plain-http 127.0.0.1") != 1 {
			t.Errorf("sign names its plain-HTTP hosts as %q, want --plain-http 127.0.0.1 once", args)
		}
		if x.Image != publish.DefaultGoImage {
			t.Errorf("sign ran in %s", x.Image)
		}
		var names []string
		for _, s := range x.Secrets {
			if s.Env != "" || s.Path == "" {
				t.Errorf("secret %+v is not a file", s)
			}
			names = append(names, s.Name)
		}
		slices.Sort(names)
		if want := []string{publishtest.OIDCTokenSecret, publishtest.RegistryPasswordSecret}; !slices.Equal(names, want) {
			t.Errorf("sign secrets %v, want %v", names, want)
		}
		for _, m := range x.Mounts {
			if m.Kind == "withMountedCache" || m.Path == "/src" {
				t.Errorf("the sign exec still has the build's %s", m.Path)
			}
		}
	}
	v.noSecrets(t)
}

func TestSignAndAttestRefuse(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newEnv(t, w)
	pushed := v.pushed(t)
	noTool := v.sign
	noTool.Tool = nil
	tests := []struct {
		name    string
		run     func() error
		wantErr string
		step    string
	}{
		{"sign without a token", func() error {
			in := v.sign
			in.OIDCToken = nil
			_, err := publish.Sign(ctx, "sign", in, v.target, pushed)
			return err
		}, "sign: check-inputs: no OIDC token", publish.StepSign},
		{"attest without the tool", func() error {
			_, err := publish.Attest(ctx, "attest", noTool, v.target, pushed, v.images)
			return err
		}, "no supplychain tool", publish.StepAttest},
		{"attest an image not built here", func() error {
			_, err := publish.Attest(ctx, "attest", v.sign, v.target, []publish.Pushed{{Name: "api", Repository: v.repo("api"), Digest: pushed[0].Digest}}, v.images)
			return err
		}, "attest: api: no image of that name", publish.StepAttest},
		{"sign a digest that is not pushed", func() error {
			_, err := publish.Sign(ctx, "sign", v.sign, v.target, []publish.Pushed{{Name: "filer", Repository: v.repo("filer"), Digest: digestA}})
			return err
		}, "sign: filer: the digest is not in the registry", publish.StepSign},
		{"sign with Fulcio over plain HTTP off the machine", func() error {
			in := v.sign
			in.FulcioURL = "http://10.20.30.40:5555"
			_, err := publish.Sign(ctx, "sign", in, v.target, pushed)
			return err
		}, "the Fulcio URL http://10.20.30.40:5555: plain HTTP goes only to a loopback address or the Dagger engine's gateway", publish.StepSign},
		{"attest with Rekor over plain HTTP off the machine", func() error {
			in := v.sign
			in.RekorURL = "http://rekor.local"
			_, err := publish.Attest(ctx, "attest", in, v.target, pushed, v.images)
			return err
		}, "the Rekor URL http://rekor.local: plain HTTP", publish.StepAttest},
		{"sign the same image twice", func() error {
			_, err := publish.Sign(ctx, "sign", v.sign, v.target, []publish.Pushed{pushed[0], pushed[0]})
			return err
		}, "given twice", publish.StepSign},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			v.noSecrets(t, err.Error())
			requireAloneNamed(t, err, tt.step)
		})
	}
	if _, entries := w.Sigstore.Counts(t); entries != 0 {
		t.Errorf("%d log entries after refusals", entries)
	}
}

// The engine caches an exec by its inputs; attest, sign and verify read and write the
// registry and Sigstore, whose state is outside the graph. Each exec of the signing tool
// carries a value of its own, so a second identical call runs the tool again (after its
// referrers were deleted, a re-run would otherwise be told "created" or "verified" from
// the cache) while the tool's build stays cached.
func TestSupplychainExecsRunEveryTime(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newEnv(t, w)
	pushed := v.pushed(t)
	root := v.c.Host().File(w.Sigstore.TrustedRoot)
	for range 2 {
		if _, err := publish.Sign(ctx, "sign", v.sign, v.target, pushed); err != nil {
			t.Fatal(err)
		}
		// Signed only, so verify fails (no provenance); what counts is that it ran.
		_, _ = publish.Verify(ctx, "verify", v.sign.Tool, v.target.RegistryTool, pushed[0].Ref(), publishtest.IdentityRegexp, publishtest.Issuer, root)
	}
	g := v.e.Graph()
	for cmd, want := range map[string]int{"supplychain sign": 2 * len(pushed), "supplychain verify": 2} {
		runs := map[string]bool{}
		execs := g.ExecsWith(cmd)
		for _, x := range execs {
			runs[x.Env["SHIPYARD_SUPPLYCHAIN_RUN"]] = true
		}
		if len(execs) != want || len(runs) != want || runs[""] {
			t.Errorf("%s: %d execs told apart by %d values (%v), want %d, each with its own", cmd, len(execs), len(runs), runs, want)
		}
	}
	if builds := g.ExecsWith("go build"); len(builds) != 2 {
		t.Errorf("go build ran %d times, want once per command: the build is cached", len(builds))
	}
}

// A release's build of the commands is the build of any other release sealed alike: its
// caches are keyed by the level's class, the Go image and the seal (a MAC of the
// credentials where they act), not by the rest of the level's scope, so the engine
// compiles the commands once for the calls of one credential; another credential's calls
// and the pull-request level never share them.
func TestToolBuildCachesFollowClassAndSeal(t *testing.T) {
	ctx := context.Background()
	e := engine.New(t)
	c := e.Client(ctx)
	src := c.Host().Directory(publishtest.SupplychainSource(t))
	password := trust.SecretOf("dckr_project")
	levels := []trust.Level{
		trust.ReleaseAt("registry-password=docker.io/elixircloud", password),
		trust.ReleaseAt("registry-password=docker.io/elixircloud", password),
		trust.ReleaseAt("registry-password=docker.io/elixircloud", trust.SecretOf("dckr_other")),
		trust.Untrusted(),
	}
	for _, l := range levels {
		if _, err := publish.BuildTool(c, src, pins.DefaultPins(), l).Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	cachesOf := map[string]string{}
	for _, b := range e.Graph().ExecsWith("go build") {
		var caches []string
		for _, m := range b.Mounts {
			if m.Kind == "withMountedCache" {
				caches = append(caches, m.Cache)
			}
		}
		slices.Sort(caches)
		cachesOf[strings.Join(caches, " ")] = b.Image
	}
	if len(cachesOf) != 3 {
		t.Fatalf("builds mounted %d sets of caches, want 3 (one per seal, one untrusted): %v", len(cachesOf), cachesOf)
	}
	for caches := range cachesOf {
		if strings.Contains(caches, "untrusted") == strings.Contains(caches, "release") {
			t.Errorf("caches %q mix or miss the classes", caches)
		}
	}
}
