package trust

import (
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/pins"
)

func TestCacheVolumeName(t *testing.T) {
	def := pins.DefaultPins()
	own, err := def.WithOverrides([]string{"trivy=mirror.example/trivy:own@sha256:9999999999999999999999999999999999999999999999999999999999999999"})
	if err != nil {
		t.Fatal(err)
	}
	extra, err := def.WithPythonImages([]string{"3.14=mirror.example/python:3.14@sha256:9999999999999999999999999999999999999999999999999999999999999999"})
	if err != nil {
		t.Fatal(err)
	}
	token := SecretOf("ghp_one")
	rel := ReleaseAt("github-token=https://api.github.com/ cloudcoil/cloudcoil", token)
	base := rel.CacheVolumeName("v", def)
	tests := []struct {
		name      string
		level     Level
		pins      pins.Pins
		wantEqual bool
	}{
		{"same level, same pins", ReleaseAt("github-token=https://api.github.com/ cloudcoil/cloudcoil", SecretOf("ghp_one")), pins.DefaultPins(), true},
		{"other level", Untrusted(), def, false},
		{"release elsewhere", ReleaseAt("github-token=https://github.example/api/v3/ cloudcoil/cloudcoil", token), def, false},
		{"another token, same place", ReleaseAt("github-token=https://api.github.com/ cloudcoil/cloudcoil", SecretOf("ghp_two")), def, false},
		{"one tree", Level{class: tree, scope: "sha256:1"}, def, false},
		{"an overriding --pin", rel, own, false},
		{"an added Python image", rel, extra, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.level.CacheVolumeName("v", tt.pins)
			if (got == base) != tt.wantEqual {
				t.Errorf("%q vs %q: equal=%t, want %t", got, base, got == base, tt.wantEqual)
			}
			if !strings.HasPrefix(got, "v-"+tt.level.String()+"-") {
				t.Errorf("%q does not name its level", got)
			}
		})
	}
	// The pull-request level's names are the pins' alone, as before levels had scopes.
	if got := Untrusted().CacheVolumeName("shipyard-uv-cache", def); got != "shipyard-uv-cache-untrusted-7a04bcd33c91" {
		t.Errorf("untrusted uv cache = %q", got)
	}
}

// callers are the ways a call can come: what it holds and asks. The hostile ones are what
// a pull request's job on a shared engine can do without the project's secrets.
var (
	defaultTargets = map[Credential]string{
		GitHubToken:      "https://api.github.com/ cloudcoil/cloudcoil",
		RegistryPassword: "docker.io/elixircloud",
		IdentityToken:    "",
	}
	// projectValues are the values of the project's own credentials.
	projectValues = map[Credential]Secret{GitHubToken: SecretOf("ghp_project"), RegistryPassword: SecretOf("dckr_project")}
	credentialed  = Caller{Holds: defaultTargets, Values: projectValues, Tree: "sha256:tree"}
	// ownValues are credentials a caller made itself.
	ownValues = map[Credential]Secret{GitHubToken: SecretOf("ghp_own"), RegistryPassword: SecretOf("dckr_own")}
	hostile   = map[string]Caller{
		"no credentials": {Tree: "sha256:tree"},
		"dry run":        {Holds: defaultTargets, Values: projectValues, Rehearsal: true, Tree: "sha256:tree"},
		// Credentials the caller made itself act only where the caller may act: its own
		// servers (a GitHub API such as a server of its choosing, which any token passes),
		// or its own repository and organisation on the real ones.
		"its own servers": {Holds: map[Credential]string{
			GitHubToken:      "https://github.attacker.example/ cloudcoil/cloudcoil",
			RegistryPassword: "registry.attacker.example/elixircloud",
			IdentityToken:    "http://127.0.0.1:5555",
		}, Values: ownValues, Tree: "sha256:tree"},
		"its own repository and organisation": {Holds: map[Credential]string{
			GitHubToken:      "https://api.github.com/ attacker/cloudcoil",
			RegistryPassword: "docker.io/attacker",
			IdentityToken:    "",
		}, Values: ownValues, Tree: "sha256:tree"},
		// The project's places, with credentials of the caller's own: it cannot compute
		// the project's seal (the servers would refuse its credentials, but its volumes
		// are named before any request).
		"credentials of its own": {Holds: defaultTargets, Values: ownValues, Tree: "sha256:tree"},
		"another tree":           {Tree: "sha256:other"},
	}
)

// with is defaultTargets with one credential acting elsewhere.
func with(c Credential, where string) map[Credential]string {
	out := map[Credential]string{}
	for k, v := range defaultTargets {
		out[k] = v
	}
	out[c] = where
	return out
}

// rules are the trust rules the module's functions are declared with
// (internal/functions), one function each, named after it.
var rules = map[string]Rule{
	"validate-models":         {},
	"release-scan":            {},
	"update-repos":            Publishing(GitHubToken),
	"release-publish-release": Publishing(GitHubToken),
	"push-by-digest":          Publishing(RegistryPassword),
	"publish-dev":             Publishing(RegistryPassword, IdentityToken),
	"release":                 Publishing(GitHubToken, RegistryPassword, IdentityToken),
	"publish-check":           TreeKeyed(),
}

// Every rule, called as a pull request's job can call it (without credentials, as a dry
// run, against servers, a repository or a tree of its own), gets a level whose volumes no
// credentialed call of any rule mounts. Every declared function is held to this too, in
// the module's tests (TestTrustLevelsKeepCachesApart).
func TestNoHostileCallGetsACredentialedCallsVolumes(t *testing.T) {
	p := pins.DefaultPins()
	released := map[string]string{} // volume name → the credentialed function that mounts it
	for fn, r := range rules {
		l, err := Of(fn, r, credentialed)
		if err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		if l.Publishes() {
			released[l.CacheVolumeName(UVCacheVolume, p)] = fn
		}
		if l.Publishes() != (len(r.Needs) > 0) {
			t.Errorf("%s, credentialed: %v, though it needs %v", fn, l, r.Needs)
		}
	}
	if len(released) == 0 {
		t.Fatal("no credentialed call runs at the release level: the test compares nothing")
	}
	for fn, r := range rules {
		for name, c := range hostile {
			l, err := Of(fn, r, c)
			if err != nil {
				t.Fatalf("%s, %s: %v", fn, name, err)
			}
			if by, ok := released[l.CacheVolumeName(UVCacheVolume, p)]; ok {
				t.Errorf("%s, %s: level %s mounts the volumes of a credentialed %s", fn, name, l, by)
			}
		}
	}
}

func TestOf(t *testing.T) {
	missing := func(c Credential) Caller {
		h := with(c, "")
		delete(h, c)
		return Caller{Holds: h, Values: projectValues}
	}
	tests := []struct {
		name    string
		fn      string
		c       Caller
		want    string // the level's class
		wantErr string
	}{
		{"a pull request's check, credentialed", "validate-models", credentialed, "untrusted", ""},
		{"update-repos, credentialed", "update-repos", credentialed, "release", ""},
		{"update-repos, a dry run", "update-repos", Caller{Holds: defaultTargets, Rehearsal: true}, "untrusted", ""},
		{"update-repos without the token's value", "update-repos", Caller{Holds: defaultTargets}, "", "the boundary read no value"},
		// Short of a credential, the call is at the pull-request level: no value is read
		// (Sealing names none) and none is asked, whatever the order of the rule's needs.
		{"publish-dev with the password alone, no value read", "publish-dev", Caller{Holds: map[Credential]string{RegistryPassword: "docker.io/elixircloud"}}, "untrusted", ""},
		{"release with the token alone, no value read", "release", Caller{Holds: map[Credential]string{GitHubToken: "https://api.github.com/ o/r"}}, "untrusted", ""},
		{"update-repos with an empty token", "update-repos", Caller{Holds: defaultTargets, Values: map[Credential]Secret{GitHubToken: SecretOf("")}}, "", "anyone can compute one of an empty github-token"},
		{"update-repos, no token", "update-repos", missing(GitHubToken), "untrusted", ""},
		{"release without the identity token", "release", missing(IdentityToken), "untrusted", ""},
		{"release without the registry password", "release", missing(RegistryPassword), "untrusted", ""},
		{"publish-dev needs no GitHub token", "publish-dev", missing(GitHubToken), "release", ""},
		{"release-scan holds nothing", "release-scan", credentialed, "untrusted", ""},
		{"publish-check: its tree's", "publish-check", Caller{Tree: "sha256:1"}, "tree", ""},
		{"publish-check without a tree", "publish-check", credentialed.withoutTree(), "", "no tree digest"},
	}
	for _, tt := range tests {
		got, err := Of(tt.fn, rules[tt.fn], tt.c)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: Of = %v, %v; want error %q", tt.name, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got.String() != tt.want {
			t.Errorf("%s: Of = %v, %v; want %s", tt.name, got, err, tt.want)
		}
	}
	// The release scope is where the needed credentials act, and nothing else.
	a, _ := Of("push-by-digest", rules["push-by-digest"], credentialed)
	b, _ := Of("push-by-digest", rules["push-by-digest"], Caller{Holds: with(GitHubToken, "https://github.example/ o/r"), Values: projectValues})
	if a != b {
		t.Errorf("push-by-digest's level depends on a credential it does not write with: %v vs %v", a, b)
	}
}

func (c Caller) withoutTree() Caller { c.Tree = ""; return c }

func TestCallerOf(t *testing.T) {
	every := Args{
		GitHubToken: true, GitHubAPI: "https://api.github.com/", Repo: "cloudcoil/cloudcoil",
		RegistryPassword: true, Registry: "docker.io", Org: "elixircloud",
		IdentityToken: true, FulcioURL: "https://fulcio.sigstore.dev",
	}
	everywhere := map[Credential]string{
		GitHubToken:      "https://api.github.com/ cloudcoil/cloudcoil",
		RegistryPassword: "docker.io/elixircloud",
		IdentityToken:    "https://fulcio.sigstore.dev",
	}
	dry := every
	dry.DryRun = true
	tests := []struct {
		name      string
		args      Args
		holds     map[Credential]string
		rehearsal bool
	}{
		{name: "every credential, each where it acts", args: every, holds: everywhere},
		{name: "nothing given", args: Args{GitHubAPI: "https://api.github.com/", Repo: "o/r", Registry: "docker.io", Org: "o"}, holds: map[Credential]string{}},
		{name: "only a registry password", args: Args{RegistryPassword: true, Registry: "ghcr.io", Org: "o", GitHubAPI: "https://api.github.com/"},
			holds: map[Credential]string{RegistryPassword: "ghcr.io/o"}},
		{name: "a token for another repository", args: Args{GitHubToken: true, GitHubAPI: "https://api.github.com/", Repo: "attacker/cloudcoil"},
			holds: map[Credential]string{GitHubToken: "https://api.github.com/ attacker/cloudcoil"}},
		{name: "a token for a server of the caller's choosing", args: Args{GitHubToken: true, GitHubAPI: "http://127.0.0.1:5555/", Repo: "cloudcoil/cloudcoil"},
			holds: map[Credential]string{GitHubToken: "http://127.0.0.1:5555/ cloudcoil/cloudcoil"}},
		{name: "a dry run holds its credentials, as a rehearsal", args: dry, holds: everywhere, rehearsal: true},
		{name: "--demo alone is no rehearsal", args: Args{Demo: true}, holds: map[Credential]string{}},
		{name: "--demo with --dry-run is one", args: Args{Demo: true, DryRun: true}, holds: map[Credential]string{}, rehearsal: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := CallerOf(tt.args)
			if !maps.Equal(c.Holds, tt.holds) || c.Rehearsal != tt.rehearsal || c.Tree != "" {
				t.Errorf("CallerOf = %+v, want holds %v, rehearsal %t", c, tt.holds, tt.rehearsal)
			}
		})
	}
}

func TestBuildCacheVolumeName(t *testing.T) {
	const image = "golang:1.26@sha256:1111111111111111111111111111111111111111111111111111111111111111"
	password := SecretOf("dckr_one")
	base := ReleaseAt("registry-password=docker.io/elixircloud", password).BuildCacheVolumeName("v", image)
	tests := []struct {
		name      string
		level     Level
		image     string
		wantEqual bool
	}{
		{"same scope, same password", ReleaseAt("registry-password=docker.io/elixircloud", SecretOf("dckr_one")), image, true},
		// The build runs only Shipyard's source in a pinned image: a release sealed alike
		// reuses it, whatever else its scope holds.
		{"the same password, and an identity token", Level{class: release, scope: "registry-password=docker.io/elixircloud\nidentity-token=https://fulcio.sigstore.dev",
			seal: sealOf(password, "registry-password=docker.io/elixircloud")}, image, true},
		{"another password, same scope", ReleaseAt("registry-password=docker.io/elixircloud", SecretOf("dckr_two")), image, false},
		{"the same password elsewhere", ReleaseAt("registry-password=ghcr.io/elixircloud", password), image, false},
		{"pull-request level", Untrusted(), image, false},
		{"one tree", Level{class: tree, scope: "sha256:1"}, image, false},
		{"another Go image", ReleaseAt("registry-password=docker.io/elixircloud", password), "mirror.example/go@sha256:2222222222222222222222222222222222222222222222222222222222222222", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.level.BuildCacheVolumeName("v", tt.image)
			if (got == base) != tt.wantEqual {
				t.Errorf("%q vs %q: equal=%t, want %t", got, base, got == base, tt.wantEqual)
			}
			if !strings.HasPrefix(got, "v-"+tt.level.String()+"-") {
				t.Errorf("%q does not name its level", got)
			}
		})
	}
}

// --demo answers from the demo world, but only a dry run writes nothing: a call of a
// function that writes, holding its credentials, writes for real whether or not it was
// given --demo (the boundary refuses such a call; were one to get through, it would push
// with the project's credentials), so it is never leveled as a rehearsal.
func TestDemoIsNoRehearsal(t *testing.T) {
	registry := Args{RegistryPassword: true, Registry: "docker.io", Org: "elixircloud"}
	withDemo := func(a Args, dry bool) Args { a.Demo, a.DryRun = true, dry; return a }
	tests := []struct {
		name      string
		fn        string
		args      Args
		rehearsal bool
		want      string // the level's class
	}{
		{"push-by-digest with --demo and the registry password", "push-by-digest", withDemo(registry, false), false, "release"},
		{"publish-dev with --demo and every credential", "publish-dev",
			withDemo(Args{RegistryPassword: true, Registry: "docker.io", Org: "elixircloud", IdentityToken: true, FulcioURL: "https://fulcio.sigstore.dev"}, false), false, "release"},
		{"update-repos with --demo and a token", "update-repos", withDemo(Args{GitHubToken: true, GitHubAPI: "https://api.github.com/", Repo: "cloudcoil/cloudcoil"}, false), false, "release"},
		{"push-by-digest with --demo, without the password", "push-by-digest", withDemo(Args{}, false), false, "untrusted"},
		{"update-repos with --demo as a dry run", "update-repos", withDemo(Args{GitHubToken: true, GitHubAPI: "https://api.github.com/", Repo: "cloudcoil/cloudcoil"}, true), true, "untrusted"},
		{"release-scan with --demo", "release-scan", withDemo(registry, false), false, "untrusted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := CallerOf(tt.args)
			c.Values = projectValues
			if c.Rehearsal != tt.rehearsal {
				t.Errorf("CallerOf(%+v).Rehearsal = %t, want %t", tt.args, c.Rehearsal, tt.rehearsal)
			}
			got, err := Of(tt.fn, rules[tt.fn], c)
			if err != nil || got.String() != tt.want {
				t.Errorf("Of = %v, %v; want %s", got, err, tt.want)
			}
		})
	}
}

// A release level's volumes are named by a MAC of the credentials' values (its seal), so
// only a holder of the credentials can name them: any commit of Shipyard run on the same
// engine can compute every other part of a name (Dagger names a module's volumes by the
// module's name and source). The names hold no value.
func TestReleaseLevelIsSealed(t *testing.T) {
	p := pins.DefaultPins()
	const image = pins.DefaultGoImage
	registry := map[Credential]string{RegistryPassword: "docker.io/elixircloud"}
	names := func(t *testing.T, fn string, c Caller) []string {
		t.Helper()
		l, err := Of(fn, rules[fn], c)
		if err != nil {
			t.Fatal(err)
		}
		return []string{l.CacheVolumeName(UVCacheVolume, p), l.BuildCacheVolumeName("shipyard-go-build", image)}
	}
	password := func(v string) map[Credential]Secret { return map[Credential]Secret{RegistryPassword: SecretOf(v)} }
	base := names(t, "push-by-digest", Caller{Holds: registry, Values: password("dckr_pat_0SECRET")})
	tests := []struct {
		name  string
		fn    string
		c     Caller
		equal []bool // per name: cache volume, build volume
	}{
		{"the same password", "push-by-digest", Caller{Holds: registry, Values: password("dckr_pat_0SECRET")}, []bool{true, true}},
		{"another password, same registry and organisation", "push-by-digest", Caller{Holds: registry, Values: password("dckr_pat_1OTHER")}, []bool{false, false}},
		{"a password one byte longer", "push-by-digest", Caller{Holds: registry, Values: password("dckr_pat_0SECRET\n")}, []bool{false, false}},
		{"no password: the pull-request level", "push-by-digest", Caller{}, []bool{false, false}},
		{"a dry run holding the password", "push-by-digest", Caller{Holds: registry, Values: password("dckr_pat_0SECRET"), Rehearsal: true}, []bool{false, false}},
		// The identity token is minted per job: it seals nothing, so a signing call's
		// builds are those of its password, while its other volumes are its scope's own.
		{"publish-dev, the same password", "publish-dev", Caller{Holds: map[Credential]string{RegistryPassword: "docker.io/elixircloud", IdentityToken: "https://fulcio.sigstore.dev"},
			Values: password("dckr_pat_0SECRET")}, []bool{false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := names(t, tt.fn, tt.c)
			for i := range got {
				if (got[i] == base[i]) != tt.equal[i] {
					t.Errorf("%q vs %q: equal %t, want %t", got[i], base[i], got[i] == base[i], tt.equal[i])
				}
			}
		})
	}
	// No name holds the value, in clear or in hex.
	for _, name := range base {
		for _, v := range []string{"dckr_pat_0SECRET", "0SECRET", hex.EncodeToString([]byte("dckr_pat_0SECRET"))} {
			if strings.Contains(strings.ToLower(name), strings.ToLower(v)) {
				t.Errorf("%q holds the password", name)
			}
		}
	}
	// Without the value there is no release level, and so no name of one: the caller
	// that only says it holds the password gets an error, not a level.
	for _, c := range []Caller{{Holds: registry}, {Holds: registry, Values: password("")}} {
		l, err := Of("push-by-digest", rules["push-by-digest"], c)
		if !errors.Is(err, ErrNoSeal) || l.Publishes() || !strings.HasPrefix(err.Error(), "push-by-digest: ") {
			t.Errorf("Of(%+v) = %v, %v; want ErrNoSeal", c, l, err)
		}
	}
	// The pull-request level's names, which anyone computes, are never a release level's,
	// whatever its seal.
	for _, v := range []string{"", "x", "dckr_pat_0SECRET"} {
		if l := ReleaseAt("registry-password=docker.io/elixircloud", SecretOf(v)); l.CacheVolumeName(UVCacheVolume, p) == Untrusted().CacheVolumeName(UVCacheVolume, p) ||
			l.BuildCacheVolumeName("v", image) == Untrusted().BuildCacheVolumeName("v", image) {
			t.Errorf("the release level sealed with %q names an untrusted volume", v)
		}
	}
}

func TestSealing(t *testing.T) {
	every := Caller{Holds: defaultTargets}
	tests := []struct {
		name string
		fn   string
		c    Caller
		want []Credential
	}{
		{"push-by-digest, credentialed", "push-by-digest", every, []Credential{RegistryPassword}},
		{"the release: the token and the password, not the identity token", "release", every, []Credential{GitHubToken, RegistryPassword}},
		{"publish-dev: the password", "publish-dev", every, []Credential{RegistryPassword}},
		{"update-repos", "update-repos", every, []Credential{GitHubToken}},
		{"a dry run reads nothing", "release", Caller{Holds: defaultTargets, Rehearsal: true}, nil},
		{"a call short of a credential reads nothing", "release", Caller{Holds: map[Credential]string{GitHubToken: "https://api.github.com/ o/r"}}, nil},
		{"a function that writes nothing", "release-scan", every, nil},
		{"a tree-keyed one", "publish-check", Caller{Holds: defaultTargets, Tree: "sha256:1"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sealing(rules[tt.fn], tt.c); !slices.Equal(got, tt.want) {
				t.Errorf("Sealing = %v, want %v", got, tt.want)
			}
		})
	}
}

// A credential's value shows in no formatting, alone or in the Caller that carries it.
func TestSecretIsRedacted(t *testing.T) {
	s := SecretOf("ghp_0SECRET")
	c := Caller{Holds: defaultTargets, Values: map[Credential]Secret{GitHubToken: s}}
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
		for _, v := range []any{s, &s, c, &c} {
			got := fmt.Sprintf(format, v)
			if strings.Contains(got, "0SECRET") || strings.Contains(strings.ToLower(got), hex.EncodeToString([]byte("0SECRET"))) {
				t.Errorf("Sprintf(%q) shows the value: %s", format, got)
			}
		}
	}
	if s.String() != "[redacted]" {
		t.Errorf("String = %q", s.String())
	}
}
