package upstreams

import (
	"bufio"
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
)

func prefix(p string) Integration { return Integration{Name: "test", TagPrefix: &p} }

func pattern(p string) Integration { return Integration{Name: "test", TagPattern: p} }

func TestReleaseVersion(t *testing.T) {
	v, istio, knative := prefix("v"), prefix(""), prefix("knative-v")
	knativePattern := pattern(`knative-v(?P<version>\d+\.\d+\.\d+)`)
	loosePattern := pattern(`(?:release-)?v?(?P<version>.*)`) // the version group must still be exact

	tests := []struct {
		name string
		in   Integration
		tag  string
		want string // "" when the tag is not a release
	}{
		{"product tag", v, "v1.21.1", "1.21.1"},
		{"zero version", v, "v0.0.0", "0.0.0"},
		{"bare tag under prefix v", v, "1.21.1", ""},
		{"istio bare tag", istio, "1.24.2", "1.24.2"},
		{"istio rejects v", istio, "v1.24.2", ""},
		{"knative product tag", knative, "knative-v1.22.0", "1.22.0"},
		{"knative Go-module twin", knative, "v0.49.0", ""},
		{"knative twin by pattern", knativePattern, "v0.49.0", ""},
		{"knative by pattern", knativePattern, "knative-v1.22.0", "1.22.0"},
		{"pattern anchored at start", knativePattern, "x-knative-v1.22.0", ""},
		{"pattern anchored at end", knativePattern, "knative-v1.22.0-rc.1", ""},
		{"loose pattern still needs X.Y.Z", loosePattern, "release-v1.2.3-rc.1", ""},
		{"loose pattern", loosePattern, "release-v1.2.3", "1.2.3"},
		{"helm chart tag", v, "helm-v2.18.5", ""},
		{"kyverno chart tag", v, "kyverno-chart-3.9.0", ""},
		{"chart tag", v, "chart-1.2.3", ""},
		{"kyverno chart v1", v, "kyverno-chart-v1", ""},
		{"helm chart with dot", v, "helm-chart-v.2.2.1", ""},
		{"prometheus sub-module", v, "pkg/apis/monitoring/v0.79.2", ""},
		{"prometheus client sub-module", v, "pkg/client/v0.79.2", ""},
		{"crossplane apis sub-module", v, "apis/v1.2.3", ""},
		{"cmctl sub-module", v, "cmd/ctl/v1.14.0", ""},
		{"moving tag", v, "stable", ""},
		{"moving tag, bare prefix", istio, "stable", ""},
		{"non-version tag", v, "docker-base-layer", ""},
		{"rc dotted", v, "v1.2.3-rc.1", ""},
		{"rc undotted", v, "v2.5.0-rc1", ""},
		{"rc bare", v, "v1.0.0-rc", ""},
		{"beta bare", v, "v2.0.0-beta", ""},
		{"alpha undotted", v, "v0.4.0-alpha1", ""},
		{"dot-joined snapshot", v, "v1.1.0.snapshot.3", ""},
		{"snapshot", v, "v1.1.0-snapshot.2", ""},
		{"preview", v, "v2.0.0-preview.2", ""},
		{"dev", istio, "1.6-dev", ""},
		{"two-part pre-release", v, "v0.15-alpha.3", ""},
		{"two-part beta, bare", istio, "1.15-beta.0", ""},
		{"hotfix suffix", v, "v2.1.2-hf1", ""},
		{"lenient post -1", v, "v2.2.8-1", ""},
		{"lenient post -r3", istio, "1.15.0-r3", ""},
		{"four parts", v, "v1.3.3.7", ""},
		{"leading zero", v, "v1.02.3", ""},
		{"build metadata", v, "v1.2.3+k3s1", ""},
		{"upper-case V", v, "V1.2.3", ""},
		{"white space", v, "v1.2.3 ", ""},
		{"empty tag", istio, "", ""},
		{"no prefix nor pattern", Integration{}, "1.2.3", ""},
		{"invalid pattern matches nothing", pattern(`(?P<version>`), "1.2.3", ""},
		{"pattern without the group matches nothing", pattern(`v\d+\.\d+\.\d+`), "v1.2.3", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ReleaseVersion(tt.in, tt.tag)
			if ok != (tt.want != "") {
				t.Fatalf("ReleaseVersion(%q) ok = %v, want %v", tt.tag, ok, tt.want != "")
			}
			if !ok {
				return
			}
			if got.String() != tt.want || got.Tag != tt.tag {
				t.Errorf("ReleaseVersion(%q) = %s (tag %q), want %s (tag %q)", tt.tag, got, got.Tag, tt.want, tt.tag)
			}
		})
	}
}

func TestCandidates(t *testing.T) {
	releases := []Release{
		{Tag: "v1.9.9"},
		{Tag: "v1.10.0"},
		{Tag: "v1.11.0", Draft: true},
		{Tag: "v1.10.1", Prerelease: true}, // flagged pre-release with a final-looking tag
		{Tag: "v1.11.0-rc.1"},              // spelled pre-release without the flag
		{Tag: "helm-v3.0.0"},
		{Tag: "v1.2.10"},
		{Tag: "v1.2.9"},
	}
	got := Candidates(prefix("v"), releases)
	var s []string
	for _, v := range got {
		s = append(s, v.Tag)
	}
	want := []string{"v1.10.0", "v1.9.9", "v1.2.10", "v1.2.9"}
	if !slices.Equal(s, want) {
		t.Errorf("Candidates = %v, want %v (newest first, numeric)", s, want)
	}

	// Two tags naming one version: the result must not depend on the listing order.
	in := pattern(`(?:release-)?v(?P<version>\d+\.\d+\.\d+)`)
	a := Candidates(in, []Release{{Tag: "v1.0.0"}, {Tag: "release-v1.0.0"}})
	b := Candidates(in, []Release{{Tag: "release-v1.0.0"}, {Tag: "v1.0.0"}})
	if len(a) != 1 || len(b) != 1 || a[0].Tag != b[0].Tag {
		t.Errorf("duplicate versions: %v vs %v, want one identical result", a, b)
	}
	if got := Candidates(prefix("v"), nil); len(got) != 0 {
		t.Errorf("Candidates(nil) = %v, want none", got)
	}
}

// corpusCase configures one real repository of the corpus the way models/upstreams.json would.
type corpusCase struct {
	file string
	in   Integration
	// product is the literal prefix of the product's tags; its final tags are exactly
	// ^<product>\d+\.\d+\.\d+$, as the corpus README states them.
	product string
	// newest is computed by hand from the file (numeric sort of the final product tags).
	newest string
}

func TestReleaseVersionCorpus(t *testing.T) {
	cases := []corpusCase{
		{file: "argoproj__argo-cd.txt", in: prefix("v"), product: "v", newest: "3.5.1"},
		{file: "buildpacks-community__kpack.txt", in: prefix("v"), product: "v"},
		{file: "cert-manager__cert-manager.txt", in: prefix("v"), product: "v", newest: "1.21.1"},
		{file: "crossplane__crossplane.txt", in: prefix("v"), product: "v"},
		{file: "fluxcd__flux2.txt", in: prefix("v"), product: "v"},
		{file: "kedacore__keda.txt", in: prefix("v"), product: "v"},
		{file: "knative__eventing.txt", in: prefix("knative-v"), product: "knative-v", newest: "1.22.2"},
		{file: "knative__eventing.txt", in: pattern(`knative-v(?P<version>[0-9]+\.[0-9]+\.[0-9]+)`), product: "knative-v", newest: "1.22.2"},
		{file: "projectcontour__contour.txt", in: prefix("v"), product: "v"},
		{file: "prometheus-operator__prometheus-operator.txt", in: prefix("v"), product: "v", newest: "0.93.0"},
		{file: "vmware-tanzu__velero.txt", in: prefix("v"), product: "v", newest: "1.18.1"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			tags := readTags(t, c.file)
			final := regexp.MustCompile(`^` + regexp.QuoteMeta(c.product) + `\d+\.\d+\.\d+$`)
			var releases []Release
			wantFinal := 0
			for _, tag := range tags {
				releases = append(releases, Release{Tag: tag})
				if final.MatchString(tag) {
					wantFinal++
				}
			}
			accepted := 0
			for _, tag := range tags {
				v, ok := ReleaseVersion(c.in, tag)
				if !ok {
					if final.MatchString(tag) {
						t.Errorf("final product tag %q was rejected", tag)
					}
					continue
				}
				accepted++
				if !final.MatchString(tag) {
					t.Errorf("tag %q is outside the product scheme %s but was accepted", tag, final)
				}
				if strings.Contains(strings.TrimPrefix(tag, c.product), "-") || strings.Contains(tag, "/") || strings.Contains(tag, "chart") {
					t.Errorf("tag %q with a suffix, a path or a chart name was accepted", tag)
				}
				if !strings.HasSuffix(tag, v.String()) {
					t.Errorf("tag %q read as %s, which it does not end with", tag, v)
				}
			}
			if accepted == 0 || accepted != wantFinal {
				t.Errorf("accepted %d tags, want the %d final product tags", accepted, wantFinal)
			}

			got := Candidates(c.in, releases)
			if len(got) != wantFinal {
				t.Fatalf("Candidates returned %d versions, want %d", len(got), wantFinal)
			}
			for i := 1; i < len(got); i++ {
				if got[i-1].Compare(got[i]) <= 0 {
					t.Fatalf("Candidates not strictly newest first at %d: %s then %s", i, got[i-1], got[i])
				}
			}
			// The newest must be the numeric maximum, whatever the string order says.
			maxByString := slices.MaxFunc(got, func(a, b Version) int { return strings.Compare(a.String(), b.String()) })
			for _, v := range got {
				if v.Compare(got[0]) > 0 {
					t.Errorf("%s is newer than the reported newest %s", v, got[0])
				}
			}
			if c.newest != "" && got[0].String() != c.newest {
				t.Errorf("newest = %s, want %s", got[0], c.newest)
			}
			t.Logf("%d tags, %d releases, newest %s (string max would say %s)", len(tags), len(got), got[0].Tag, maxByString.Tag)
		})
	}
}

func readTags(t *testing.T, file string) []string {
	t.Helper()
	var tags []string
	sc := bufio.NewScanner(bytes.NewReader(corpus.Read(t, "upstream-tags", file)))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			tags = append(tags, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return tags
}

func FuzzReleaseVersion(f *testing.F) {
	for _, s := range []string{"v1.2.3", "knative-v1.22.0", "1.24.2", "v1.2.3-rc.1", "pkg/apis/monitoring/v0.79.2",
		"v1.3.3.7", "v2.2.8-1", "v01.2.3", "stable", "", "v1.2.3\n", "v9999999999.0.0"} {
		f.Add(s)
	}
	integrations := []Integration{prefix("v"), prefix(""), prefix("knative-v"), pattern(`knative-v(?P<version>.+)`)}
	f.Fuzz(func(t *testing.T, tag string) {
		for _, in := range integrations {
			v, ok := ReleaseVersion(in, tag)
			if !ok {
				continue
			}
			if v.Tag != tag {
				t.Fatalf("Tag = %q, want %q", v.Tag, tag)
			}
			if in.TagPrefix != nil && tag != *in.TagPrefix+v.String() {
				t.Fatalf("%q accepted as %s but is not prefix+X.Y.Z", tag, v)
			}
			if !strings.HasSuffix(tag, v.String()) {
				t.Fatalf("%q accepted as %s", tag, v)
			}
			back, err := ParseVersion(v.String())
			if err != nil || back.Compare(v) != 0 {
				t.Fatalf("%s does not round-trip: %v", v, err)
			}
		}
	})
}
