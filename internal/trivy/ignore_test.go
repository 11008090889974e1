package trivy

import (
	"slices"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/demoworld/corpus"
)

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func ids(entries []IgnoreEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.ID)
	}
	return out
}

func TestParseIgnoreFileDocumentedExample(t *testing.T) {
	f, err := ParseIgnoreFile(corpus.Read(t, "trivy", "trivyignore-examples.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(f.Vulnerabilities), []string{"CVE-2022-40897", "CVE-2023-2650", "CVE-2023-3446", "CVE-2023-3817", "CVE-2023-29491"}; !slices.Equal(got, want) {
		t.Errorf("vulnerabilities = %v, want %v", got, want)
	}
	if got, want := ids(f.Misconfigurations), []string{"AVD-DS-0001", "AVD-DS-0002"}; !slices.Equal(got, want) {
		t.Errorf("misconfigurations = %v, want %v", got, want)
	}
	if got, want := ids(f.Secrets), []string{"aws-access-key-id", "aws-secret-access-key"}; !slices.Equal(got, want) {
		t.Errorf("secrets = %v, want %v", got, want)
	}
	if got, want := ids(f.Licenses), []string{"GPL-3.0", "MIT AND GPL-2.0-or-later", "Apache-2.0 WITH LLVM-exception", "LLVM-exception"}; !slices.Equal(got, want) {
		t.Errorf("licenses = %v, want %v", got, want)
	}
	first := f.Vulnerabilities[0]
	if first.Statement != "Accept the risk" || first.Line != 4 || len(first.Paths) != 1 || !first.ExpiredAt.IsZero() {
		t.Errorf("first entry = %+v", first)
	}
	if e := f.Vulnerabilities[3]; !slices.Equal(e.PURLs, []string{"pkg:deb/debian/libssl1.1"}) {
		t.Errorf("CVE-2023-3817 purls = %v", e.PURLs)
	}
	if e := f.Vulnerabilities[4]; !e.ExpiredAt.Equal(date(2023, 9, 1)) || e.Line != 13 {
		t.Errorf("CVE-2023-29491 = %+v, want expiry 2023-09-01 at line 13", e)
	}
}

// TestMatchAsTrivysFilterTest replays the "ignore yaml" case of Trivy's pkg/result/filter_test.go
// on its fixture, with its fake clock: the findings Trivy ignores there are ignored here.
func TestMatchAsTrivysFilterTest(t *testing.T) {
	f, err := ParseIgnoreFile(corpus.Read(t, "trivy", "trivyignore-testdata.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2020, 8, 10, 7, 28, 17, 958601, time.UTC)
	golang := func(name, version string) PkgIdentifier {
		return PkgIdentifier{PURL: "pkg:golang/github.com/aquasecurity/" + name + "@" + version}
	}
	tests := []struct {
		v       Vulnerability
		ignored bool
	}{
		{Vulnerability{VulnerabilityID: "CVE-2019-0001", PkgIdentifier: golang("foo", "1.2.3")}, true},  // **/*-lock.json
		{Vulnerability{VulnerabilityID: "CVE-2019-0002", PkgIdentifier: golang("foo", "4.5.6")}, false}, // only bar/package.json
		{Vulnerability{VulnerabilityID: "CVE-2019-0003"}, true},
		{Vulnerability{VulnerabilityID: "CVE-2019-0004"}, false},
		{Vulnerability{VulnerabilityID: "CVE-2019-0005"}, true},  // expires 2023-01-01
		{Vulnerability{VulnerabilityID: "CVE-2019-0006"}, false}, // expired 2020-01-01
	}
	for _, tt := range tests {
		if _, got := f.MatchVulnerability("foo/package-lock.json", tt.v, now); got != tt.ignored {
			t.Errorf("%s ignored = %v, want %v", tt.v.VulnerabilityID, got, tt.ignored)
		}
	}
}

func TestMatchVulnerability(t *testing.T) {
	f, err := ParseIgnoreFile([]byte(`
vulnerabilities:
  - id: CVE-1
    paths: ["usr/local/lib/**/METADATA"]
    statement: by path
  - id: CVE-2
    purls: ["pkg:golang/github.com/aquasecurity/bar", "pkg:golang/github.com/aquasecurity/aaa@9.9.9"]
  - id: CVE-3
    purls: ["pkg:deb/debian/openssl?arch=amd64"]
  - id: CVE-4
    expired_at: 2024-03-01
  - id: CVE-5
    paths: ["app/*.jar"]
    statement: by package path
  - id: CVE-5
    statement: by id
  - id: CVE-6
    paths: ["{a,b}/lib/[!x]*.so"]
`))
	if err != nil {
		t.Fatal(err)
	}
	now := date(2024, 1, 1)
	tests := []struct {
		name      string
		target    string
		v         Vulnerability
		now       time.Time
		statement string // of the matching entry; "-" for no match
	}{
		{"glob over directories", "usr/local/lib/python3.9/site-packages/x/METADATA", Vulnerability{VulnerabilityID: "CVE-1"}, now, "by path"},
		{"glob with no directory between", "usr/local/lib/METADATA", Vulnerability{VulnerabilityID: "CVE-1"}, now, "by path"},
		{"glob misses", "usr/lib/METADATA", Vulnerability{VulnerabilityID: "CVE-1"}, now, "-"},
		{"path against PkgPath", "img (debian 12)", Vulnerability{VulnerabilityID: "CVE-1", PkgPath: "usr/local/lib/a/METADATA"}, now, "by path"},
		{"other id", "usr/local/lib/METADATA", Vulnerability{VulnerabilityID: "CVE-9"}, now, "-"},
		{"id is exact", "usr/local/lib/METADATA", Vulnerability{VulnerabilityID: "cve-1"}, now, "-"},
		{"purl without version", "go.mod", Vulnerability{VulnerabilityID: "CVE-2", PkgIdentifier: PkgIdentifier{PURL: "pkg:golang/github.com/aquasecurity/bar@1.0.0"}}, now, ""},
		{"purl version matches", "go.mod", Vulnerability{VulnerabilityID: "CVE-2", PkgIdentifier: PkgIdentifier{PURL: "pkg:golang/github.com/aquasecurity/aaa@9.9.9"}}, now, ""},
		{"purl version differs", "go.mod", Vulnerability{VulnerabilityID: "CVE-2", PkgIdentifier: PkgIdentifier{PURL: "pkg:golang/github.com/aquasecurity/aaa@1.0.0"}}, now, "-"},
		{"purl name differs", "go.mod", Vulnerability{VulnerabilityID: "CVE-2", PkgIdentifier: PkgIdentifier{PURL: "pkg:golang/github.com/aquasecurity/baz@1.0.0"}}, now, "-"},
		{"finding without purl", "go.mod", Vulnerability{VulnerabilityID: "CVE-2"}, now, ""},
		{"finding purl unreadable", "go.mod", Vulnerability{VulnerabilityID: "CVE-2", PkgIdentifier: PkgIdentifier{PURL: "golang/bar"}}, now, "-"},
		{"qualifier present", "img", Vulnerability{VulnerabilityID: "CVE-3", PkgIdentifier: PkgIdentifier{PURL: "pkg:deb/debian/openssl@3.0.11-1?arch=amd64&distro=debian-12"}}, now, ""},
		{"qualifier differs", "img", Vulnerability{VulnerabilityID: "CVE-3", PkgIdentifier: PkgIdentifier{PURL: "pkg:deb/debian/openssl@3.0.11-1?arch=arm64"}}, now, "-"},
		{"before expiry", "img", Vulnerability{VulnerabilityID: "CVE-4"}, date(2024, 2, 29), ""},
		{"at expiry midnight UTC", "img", Vulnerability{VulnerabilityID: "CVE-4"}, date(2024, 3, 1), ""},
		{"after expiry midnight UTC", "img", Vulnerability{VulnerabilityID: "CVE-4"}, date(2024, 3, 1).Add(time.Nanosecond), "-"},
		{"target before package path", "app/x.jar", Vulnerability{VulnerabilityID: "CVE-5", PkgPath: "lib/y.jar"}, now, "by package path"},
		{"package path after target", "img", Vulnerability{VulnerabilityID: "CVE-5", PkgPath: "app/y.jar"}, now, "by id"},
		{"braces and negated class", "b/lib/libz.so", Vulnerability{VulnerabilityID: "CVE-6"}, now, ""},
		{"negated class excludes", "b/lib/xz.so", Vulnerability{VulnerabilityID: "CVE-6"}, now, "-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := f.MatchVulnerability(tt.target, tt.v, tt.now)
			got := "-"
			if ok {
				got = e.Statement
			}
			if got != tt.statement {
				t.Errorf("MatchVulnerability(%q, %+v) matched %q, want %q", tt.target, tt.v, got, tt.statement)
			}
		})
	}
}

func TestIgnoreEntriesBuiltInCode(t *testing.T) {
	f := IgnoreFile{Vulnerabilities: []IgnoreEntry{{ID: "CVE-1", PURLs: []string{"pkg:deb/debian/bash"}}}}
	v := Vulnerability{VulnerabilityID: "CVE-1", PkgIdentifier: PkgIdentifier{PURL: "pkg:deb/debian/bash@5.0-4?arch=amd64"}}
	if _, ok := f.MatchVulnerability("img", v, date(2024, 1, 1)); !ok {
		t.Error("an entry built without ParseIgnoreFile does not match its purl")
	}
}

func TestParseIgnoreFileRefusesWhatTrivyRefuses(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"syntax", "vulnerabilities:\n  - id: a\n    statement: b: c\n", "line 3: mapping values are not allowed"},
		{"repeated key", "vulnerabilities:\n  - id: a\n    id: b\n", `"id" already defined`},
		{"section not a list", "vulnerabilities: CVE-1\n", "cannot unmarshal"},
		{"top level a list", "- id: CVE-1\n", "cannot unmarshal"},
		{"quoted date", "vulnerabilities:\n  - id: a\n    expired_at: \"2024-01-01\"\n", "parsing time"},
		{"impossible date", "vulnerabilities:\n  - id: a\n    expired_at: 2024-02-30\n", "parsing time"},
		{"bad glob", "vulnerabilities:\n  - id: a\n    paths: [\"a/[b\"]\n", `invalid path pattern "a/[b"`},
		{"bad purl", "vulnerabilities:\n  - id: a\n    purls: [\"deb/debian/bash\"]\n", `does not start with "pkg:"`},
		{"purl without name", "vulnerabilities:\n  - id: a\n    purls: [\"pkg:deb\"]\n", "needs a type and a name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseIgnoreFile([]byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseIgnoreFile = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

func TestParseIgnoreFileLenientLikeTrivy(t *testing.T) {
	// Unknown keys are skipped, a misspelt expired_at never expires, an empty "-" is dropped.
	f, err := ParseIgnoreFile([]byte("ignored: 1\nvulnerabilities:\n  - id: 2024\n    expires_at: 2020-01-01\n  -\nsecrets:\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(f.Vulnerabilities); !slices.Equal(got, []string{"2024"}) || !f.Vulnerabilities[0].ExpiredAt.IsZero() {
		t.Errorf("vulnerabilities = %+v", f.Vulnerabilities)
	}
}

func TestParsePURL(t *testing.T) {
	tests := []struct {
		in   string
		want purl
	}{
		{"pkg:deb/debian/libssl1.1", purl{Type: "deb", Namespace: "debian", Name: "libssl1.1"}},
		{"pkg:golang/github.com/aquasecurity/aaa@9.9.9", purl{Type: "golang", Namespace: "github.com/aquasecurity", Name: "aaa", Version: "9.9.9"}},
		{"pkg:pypi/setuptools@58.1.0", purl{Type: "pypi", Name: "setuptools", Version: "58.1.0"}},
		{"pkg:npm/%40angular/core@1.0.0#src", purl{Type: "npm", Namespace: "@angular", Name: "core", Version: "1.0.0", Subpath: "src"}},
		{"PKG:APK/alpine/musl@1.1.20-r4?arch=x86_64&distro=3.9.4", purl{Type: "apk", Namespace: "alpine", Name: "musl", Version: "1.1.20-r4",
			Qualifiers: map[string]string{"arch": "x86_64", "distro": "3.9.4"}}},
	}
	for _, tt := range tests {
		got, err := parsePURL(tt.in)
		if err != nil || got.Type != tt.want.Type || got.Namespace != tt.want.Namespace || got.Name != tt.want.Name ||
			got.Version != tt.want.Version || got.Subpath != tt.want.Subpath || len(got.Qualifiers) != len(tt.want.Qualifiers) {
			t.Errorf("parsePURL(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
		for k, v := range tt.want.Qualifiers {
			if got.Qualifiers[k] != v {
				t.Errorf("parsePURL(%q) qualifier %s = %q, want %q", tt.in, k, got.Qualifiers[k], v)
			}
		}
	}
	for _, bad := range []string{"", "deb/debian/bash", "pkg:", "pkg:deb", "pkg:/bash", "pkg:deb/debian/ba%zz", "pkg:deb/x?arch"} {
		if _, err := parsePURL(bad); err == nil {
			t.Errorf("parsePURL(%q) accepted", bad)
		}
	}
}
