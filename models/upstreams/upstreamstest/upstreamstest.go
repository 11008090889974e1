// Package upstreamstest holds the fixture generator repository for model-versions tests: a
// Cloudcoil-style tree with models/upstreams.json and models/<name>/cookiecutter.yaml for
// eight integrations (kubernetes with maintained lines, istio without a "v", knative with
// "knative-v" both by prefix and by pattern, cert-manager, keda, kyverno, velero with
// several schema files), the upstream GitHub releases those integrations see — with the
// traps real repositories have — and Cloudcoil's PyPI history.
package upstreamstest

import (
	"embed"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"dagger/shipyard/internal/demoworld/pypisim"
	"dagger/shipyard/models/upstreams"
)

//go:embed all:testdata/generator
var generator embed.FS

// GeneratorFS is the fixture tree, rooted where the generator repository's root is (so
// "models/upstreams.json" opens the upstreams file).
func GeneratorFS() fs.FS {
	sub, err := fs.Sub(generator, "testdata/generator")
	if err != nil {
		panic(err) // the embedded path is a constant of this package
	}
	return sub
}

// ReadFile returns one fixture file by its repository path.
func ReadFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := fs.ReadFile(GeneratorFS(), path)
	if err != nil {
		t.Fatalf("fixture %s: %v", path, err)
	}
	return b
}

// Names are the fixture's integrations, sorted.
func Names() []string {
	return []string{"cert-manager", "istio", "keda", "knative-eventing", "knative-serving", "kubernetes", "kyverno", "velero"}
}

// WriteGenerator copies the fixture tree into dir.
func WriteGenerator(t testing.TB, dir string) {
	t.Helper()
	err := fs.WalkDir(GeneratorFS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := fs.ReadFile(GeneratorFS(), path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("write fixture generator repository: %v", err)
	}
}

// GeneratorRepo makes a real Git repository in a temporary directory holding the fixture on
// branch main, in one commit with a fixed author and date so its hash is reproducible.
func GeneratorRepo(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skipf("fixture generator repository needs the git CLI: %v", err)
	}
	dir := t.TempDir()
	WriteGenerator(t, dir)
	for _, args := range [][]string{
		{"init", "--quiet", "--initial-branch=main"},
		{"add", "--all"},
		{"commit", "--quiet", "--no-gpg-sign", "--message", "Add model sources"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(),
			"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=Fixture", "GIT_AUTHOR_EMAIL=fixture@example.com",
			"GIT_COMMITTER_NAME=Fixture", "GIT_COMMITTER_EMAIL=fixture@example.com",
			"GIT_AUTHOR_DATE=2025-01-06T09:00:00Z", "GIT_COMMITTER_DATE=2025-01-06T09:00:00Z",
		)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// Releases are the upstream GitHub releases of the fixture's integrations, by repository,
// newest first as the releases API lists them. Besides the product releases they hold what
// real repositories hold: chart and sub-module tags, Go-module twins of Knative tags,
// pre-releases (flagged or only spelled so), drafts and a lenient post-release suffix.
func Releases() map[string][]upstreams.Release {
	final := func(tags ...string) []upstreams.Release {
		out := make([]upstreams.Release, len(tags))
		for i, t := range tags {
			out[i] = upstreams.Release{Tag: t}
		}
		return out
	}
	pre := func(tag string) upstreams.Release { return upstreams.Release{Tag: tag, Prerelease: true} }
	draft := func(tag string) upstreams.Release { return upstreams.Release{Tag: tag, Draft: true} }
	cat := func(parts ...[]upstreams.Release) []upstreams.Release {
		var out []upstreams.Release
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	one := func(r ...upstreams.Release) []upstreams.Release { return r }
	return map[string][]upstreams.Release{
		"cert-manager/cert-manager": cat(
			one(draft("v1.17.2")),
			final("v1.16.5", "v1.17.1"),
			one(pre("v1.18.0-beta.0")),
			final("cmd/ctl/v1.14.7", "v1.17.0", "v1.16.4"),
			one(pre("v1.17.0-alpha.1")),
			final("v1.16.3", "v0.15-alpha.3"),
		),
		"istio/istio": cat(
			one(pre("1.26.0-beta.0")),
			final("1.25.1", "1.24.4"),
			final("1.15.0-r3"), // a suffix a lenient parser reads as a post-release
			final("1.25.0"),
			one(pre("1.25.0-rc.1")),
			final("1.24.3", "1.24.2", "1.9.9"),
		),
		"kedacore/keda": cat(
			final("v2.17.0", "v2.16.1"),
			one(pre("v2.0.0-rc2")),
		),
		"knative/eventing": cat(
			final("knative-v1.17.0", "v0.44.0", "knative-v1.16.2", "v0.43.2", "knative-v1.16.1", "v0.43.1"),
		),
		"knative/serving": cat(
			final("knative-v1.16.1", "v0.43.1", "knative-v1.16.0", "v0.43.0"),
		),
		"kubernetes/kubernetes": cat(
			one(pre("v1.34.0-alpha.1")),
			final("v1.33.1", "v1.32.2", "v1.31.6", "v1.30.10", "v1.29.14"),
			one(pre("v1.33.0-rc.1")),
			final("v1.33.0", "v1.32.1", "v1.31.5", "v1.30.9", "v1.29.13", "v1.28.15"),
		),
		"kyverno/kyverno": cat(
			final("kyverno-chart-3.3.4", "helm-v2.18.5"),
			final("v1.14.0-rc.1"), // an rc published without the pre-release flag
			final("v1.13.4", "v1.13.3"),
			one(draft("v1.13.5")),
			final("v1.13.2", "stable"),
		),
		"vmware-tanzu/velero": cat(
			one(pre("v1.16.0-rc.1")),
			final("v1.15.2", "v1.3.3.7", "v2.2.8-1"),
		),
	}
}

// SeedPyPI gives the simulator Cloudcoil's history: a newer patch within 0.5, a newer
// yanked one, a release with only one of its files yanked, pre-releases, a dev release, a
// version without files and a new minor (0.6) that needs a migration.
func SeedPyPI(s *pypisim.Server) {
	for _, v := range []string{"0.4.2", "0.5.0", "0.5.1", "0.5.3", "0.5.4", "0.5.5", "0.5.6rc1", "0.6.0.dev1", "0.6.0b1", "0.6.0", "0.6.1"} {
		s.AddRelease("cloudcoil", v)
	}
	s.AddEmptyRelease("cloudcoil", "0.5.7")
	_ = s.Yank("cloudcoil", "0.5.5", "broken generated imports")
	_ = s.YankFile("cloudcoil", "cloudcoil-0.5.4.tar.gz", "sdist missing py.typed")
}
