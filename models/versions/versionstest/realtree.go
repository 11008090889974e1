package versionstest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/models/upstreams"
)

// RealReleases are upstream release lists written for the real Cloudcoil tree's 12
// integrations, newest first, in each project's real tag scheme and with its traps
// (pre-releases, Go module tags beside Knative's product tags, Helm chart tags): every
// integration has a patch; cert-manager, Istio and Prometheus Operator (newest-minor) and
// Kubernetes (maintained-lines) have a new minor.
func RealReleases() map[string][]upstreams.Release {
	return map[string][]upstreams.Release{
		"cert-manager/cert-manager":  {{Tag: "v1.18.0"}, {Tag: "v1.17.2"}, {Tag: "v1.17.1"}, {Tag: "v1.16.3"}},
		"fluxcd/flux2":               {{Tag: "v2.6.0-rc.1", Prerelease: true}, {Tag: "v2.5.2"}, {Tag: "v2.5.1"}},
		"istio/istio":                {{Tag: "1.25.0"}, {Tag: "1.24.3"}, {Tag: "1.24.2"}},
		"kedacore/keda":              {{Tag: "v2.16.2"}, {Tag: "v2.16.1"}},
		"knative/eventing":           {{Tag: "knative-v1.17.2"}, {Tag: "v0.44.2"}, {Tag: "knative-v1.17.1"}},
		"knative/serving":            {{Tag: "knative-v1.17.1"}, {Tag: "knative-v1.17.0"}},
		"buildpacks-community/kpack": {{Tag: "v0.16.2"}, {Tag: "v0.16.1"}},
		"kubernetes/kubernetes": {{Tag: "v1.33.0"}, {Tag: "v1.33.0-rc.0", Prerelease: true}, {Tag: "v1.32.3"}, {Tag: "v1.31.7"},
			{Tag: "v1.30.11"}, {Tag: "v1.29.15"}, {Tag: "v1.32.1"}, {Tag: "v1.31.5"}, {Tag: "v1.30.9"}, {Tag: "v1.29.13"}},
		"kyverno/kyverno":                         {{Tag: "v1.13.5"}, {Tag: "v1.13.4"}},
		"prometheus-operator/prometheus-operator": {{Tag: "v0.81.0"}, {Tag: "v0.80.2"}, {Tag: "v0.80.1"}},
		"bitnami-labs/sealed-secrets":             {{Tag: "v0.28.1"}, {Tag: "helm-v2.17.0"}, {Tag: "v0.28.0"}},
		"vmware-tanzu/velero":                     {{Tag: "v1.15.3"}, {Tag: "v1.15.2"}},
	}
}

// RealTreeFiles reads the real Cloudcoil tree (../shared/corpus/cloudcoil/tree, skipped
// or failed as the corpus locator decides) as a maintainer's checkout holds what
// model-versions and propose-upstreams read: models/, cookiecutter/ and the root project
// files, by repository path.
func RealTreeFiles(t testing.TB) map[string]string {
	t.Helper()
	root := filepath.Join(corpus.Dir(t, "cloudcoil"), "tree")
	files := map[string]string{}
	for _, top := range []string{"models", "cookiecutter", "Makefile", "pyproject.toml", "uv.lock", "VERSIONING.md"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			files[filepath.ToSlash(rel)] = string(b)
			return err
		})
		if err != nil {
			t.Fatalf("the real Cloudcoil tree: %v", err)
		}
	}
	return files
}

// AdoptedUpstreams is the models/upstreams.json that propose-upstreams writes for files,
// the first step of adoption, with PyPI unread: Cloudcoil stays on the template's lower
// bound (0.4.0), so model-versions' plan on this tree moves Cloudcoil within 0.4 and
// proposes the 0.5 migration.
func AdoptedUpstreams(t testing.TB, files map[string]string) string {
	t.Helper()
	return ProposedUpstreams(t, files, upstreams.CloudcoilEvidence{})
}

// ProposedUpstreams is the models/upstreams.json that propose-upstreams writes for files
// with Cloudcoil's releases as evidence (VERSIONING.md is read from files).
func ProposedUpstreams(t testing.TB, files map[string]string, evidence upstreams.CloudcoilEvidence) string {
	t.Helper()
	cookiecutters := map[string][]byte{}
	for p, b := range files {
		if name, ok := strings.CutSuffix(strings.TrimPrefix(p, "models/"), "/cookiecutter.yaml"); ok && !strings.Contains(name, "/") {
			cookiecutters[name] = []byte(b)
		}
	}
	if v, ok := files[upstreams.VersioningPath]; ok && evidence.Versioning == nil {
		evidence.Versioning = []byte(v)
	}
	proposal, err := upstreams.ProposeFile(cookiecutters, []byte(files[upstreams.TemplatePyproject]), "cloudcoil", evidence)
	if err != nil || len(proposal.Unresolved) != 0 {
		t.Fatalf("propose-upstreams on the real tree: %v, unresolved %v", err, proposal.Unresolved)
	}
	raw, err := proposal.File.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// NewRealTree seeds the simulators as a maintainer adopting Shipyard stands: the real tree
// on main with the models/upstreams.json propose-upstreams wrote for it, RealReleases, and
// Cloudcoil on PyPI with newer patches of 0.4 (the template's minor) and a 0.5 line.
func NewRealTree(t testing.TB) *World {
	t.Helper()
	files := RealTreeFiles(t)
	files[upstreams.FilePath] = AdoptedUpstreams(t, files)
	w := NewFrom(t, files, RealReleases())
	for _, v := range []string{"0.4.0", "0.4.1", "0.4.2", "0.5.0", "0.5.1"} {
		w.PyPI.AddRelease("cloudcoil", v)
	}
	return w
}
