package trivy

import (
	"encoding/json"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
)

// alpine310Report is the JSON report of the scan behind the corpus's alpine-310.sarif: the
// same four findings, as Trivy's JSON names them (target "<image> (<os>)").
const alpine310Report = `{"SchemaVersion": 2, "ArtifactName": "testdata/fixtures/images/alpine-310.tar.gz",
 "Results": [{"Target": "testdata/fixtures/images/alpine-310.tar.gz (alpine 3.10.2)", "Class": "os-pkgs", "Type": "alpine",
  "Vulnerabilities": [
   {"VulnerabilityID": "CVE-2019-1549", "PkgName": "libcrypto1.1", "InstalledVersion": "1.1.1c-r0", "FixedVersion": "1.1.1d-r0", "Severity": "MEDIUM",
    "PkgIdentifier": {"PURL": "pkg:apk/alpine/libcrypto1.1@1.1.1c-r0?arch=x86_64&distro=3.10.2"}},
   {"VulnerabilityID": "CVE-2019-1551", "PkgName": "libcrypto1.1", "InstalledVersion": "1.1.1c-r0", "FixedVersion": "1.1.1d-r2", "Severity": "MEDIUM"},
   {"VulnerabilityID": "CVE-2019-1549", "PkgName": "libssl1.1", "InstalledVersion": "1.1.1c-r0", "FixedVersion": "1.1.1d-r0", "Severity": "MEDIUM",
    "PkgIdentifier": {"PURL": "pkg:apk/alpine/libssl1.1@1.1.1c-r0?arch=x86_64&distro=3.10.2"}},
   {"VulnerabilityID": "CVE-2019-1551", "PkgName": "libssl1.1", "InstalledVersion": "1.1.1c-r0", "FixedVersion": "1.1.1d-r2", "Severity": "MEDIUM"}]}]}`

// suppressed lists "rule package: justification" for each result a log marks as suppressed,
// checking each suppression's shape on the way.
func suppressed(t *testing.T, log []byte) []string {
	t.Helper()
	var l struct {
		Runs []struct {
			Results []struct {
				RuleID  string
				Message struct{ Text string }
				// Suppressions as code scanning reads them.
				Suppressions []Suppression
			}
		}
	}
	if err := json.Unmarshal(log, &l); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range l.Runs {
		for _, res := range r.Results {
			for _, s := range res.Suppressions {
				if s.Kind != "external" || s.Status != "accepted" {
					t.Errorf("%s: suppression %+v, want kind external, status accepted", res.RuleID, s)
				}
				out = append(out, res.RuleID+" "+messageField(res.Message.Text, "Package")+": "+s.Justification)
			}
		}
	}
	return out
}

func TestSuppressAcceptedMarksWhatTheIgnoreFileAccepts(t *testing.T) {
	report, err := ParseReport([]byte(alpine310Report))
	if err != nil {
		t.Fatal(err)
	}
	sarif := corpus.Read(t, "trivy", "alpine-310.sarif")
	tests := []struct {
		name, ignore string
		want         []string
	}{
		{"nothing accepted", ``, nil},
		{"an id accepts it in every package",
			"vulnerabilities:\n  - id: CVE-2019-1549\n    statement: \"not reachable: no fork after RNG use\"\n    expired_at: 2030-01-01\n",
			[]string{"CVE-2019-1549 libcrypto1.1: not reachable: no fork after RNG use", "CVE-2019-1549 libssl1.1: not reachable: no fork after RNG use"}},
		{"a purl narrows it to one package",
			"vulnerabilities:\n  - id: CVE-2019-1549\n    purls: [\"pkg:apk/alpine/libssl1.1\"]\n    statement: TLS unused\n    expired_at: 2030-01-01\n",
			[]string{"CVE-2019-1549 libssl1.1: TLS unused"}},
		{"a path that is not the image accepts nothing",
			"vulnerabilities:\n  - id: CVE-2019-1551\n    paths: [\"app/requirements.txt\"]\n    statement: x\n    expired_at: 2030-01-01\n", nil},
		{"an expired entry accepts nothing",
			"vulnerabilities:\n  - id: CVE-2019-1551\n    statement: waited for upstream\n    expired_at: 2024-01-01\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ignore, err := ParseIgnoreFile([]byte(tt.ignore))
			if err != nil {
				t.Fatal(err)
			}
			v := Evaluate(report, ignore, date(2025, 6, 1))
			out, n, err := SuppressAccepted(sarif, v.Ignored)
			if err != nil {
				t.Fatal(err)
			}
			got := suppressed(t, out)
			if n != len(tt.want) || strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("marked %d:\n%s\nwant:\n%s", n, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			// The log stays a SARIF log code scanning accepts, with every result kept.
			s, err := ParseSARIF(out)
			if err != nil || s.ResultCount() != 4 {
				t.Fatalf("rewritten log: %d results, %v", s.ResultCount(), err)
			}
			if !strings.Contains(string(out), `"security-severity": "5.3"`) || !strings.Contains(string(out), `"startLine": 1`) {
				t.Error("rewritten log lost the properties and regions Trivy wrote")
			}
		})
	}
}

func TestSuppressAcceptedRefusesWhatIsNotSARIF(t *testing.T) {
	for _, in := range []string{`{`, `{"version":"2.0.0","runs":[]}`, `{"version":"2.1.0"}`} {
		if _, _, err := SuppressAccepted([]byte(in), nil); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
}

func TestLocates(t *testing.T) {
	tests := []struct {
		uri  string
		f    Finding
		want bool
	}{
		{"img.tar", Finding{Target: "img.tar (alpine 3.10.2)"}, true},
		{"img.tar", Finding{Target: "img.tar"}, true},
		{"usr/lib/python3/site-packages/x.dist-info/METADATA", Finding{Target: "Python", PkgPath: "usr/lib/python3/site-packages/x.dist-info/METADATA"}, true},
		{"other.tar", Finding{Target: "img.tar (alpine 3.10.2)"}, false},
		{"img.tar", Finding{Target: "Python", PkgPath: "app/x"}, false},
		// An image reference: Trivy v0.74.0's SARIF keeps only its repository (ToPathUri in
		// pkg/report/sarif.go), as it wrote for the real-engine suite's scans by digest.
		{"shipyard-test/tesk-core-filer", Finding{Target: "10.87.0.1:5000/shipyard-test/tesk-core-filer@sha256:" + strings.Repeat("ab", 32) + " (debian 12.15)"}, true},
		{"elixircloud/tesk-core-filer", Finding{Target: "docker.io/elixircloud/tesk-core-filer:0.11.0 (debian 12.15)"}, true},
		{"library/alpine", Finding{Target: "alpine:3.10 (alpine 3.10.2)"}, true},
		{"other/img", Finding{Target: "10.87.0.1:5000/shipyard-test/tesk-core-filer@sha256:" + strings.Repeat("ab", 32) + " (debian 12.15)"}, false},
	}
	for _, tt := range tests {
		if got := locates(tt.uri, tt.f); got != tt.want {
			t.Errorf("locates(%q, %+v) = %v, want %v", tt.uri, tt.f, got, tt.want)
		}
	}
}

// TestRepositoryPath reads scan targets as Trivy does for its SARIF locations: the targets
// of the corpus's reports (image tarballs), Trivy's README examples and the real-engine
// suite's scans by digest.
func TestRepositoryPath(t *testing.T) {
	digest := "sha256:" + strings.Repeat("ab", 32)
	tests := []struct {
		target, want string
		ok           bool
	}{
		{"testdata/fixtures/images/alpine-39.tar.gz", "testdata/fixtures/images/alpine-39.tar.gz", true},
		{"testdata/fixtures/images/debian-buster.tar.gz", "testdata/fixtures/images/debian-buster.tar.gz", true},
		{"10.87.0.1:5000/shipyard-test/tesk-core-filer@" + digest, "shipyard-test/tesk-core-filer", true},
		{"10.87.0.1:5000/shipyard-test/tesk-core-filer:sha-abc@" + digest, "shipyard-test/tesk-core-filer", true},
		{"docker.io/elixircloud/tesk-core-filer:0.11.0", "elixircloud/tesk-core-filer", true},
		{"index.docker.io/library/python:3.12-slim", "library/python", true},
		{"alpine:3.10", "library/alpine", true},
		{"alpine", "library/alpine", true},
		{"docker.io/alpine", "library/alpine", true},
		{"ghcr.io/elixir-cloud-aai/tesk-core:latest", "elixir-cloud-aai/tesk-core", true},
		{"localhost:5000/img", "img", true},
		{"localhost/img", "localhost/img", true},
		{"Python", "", false},
		{"img@sha256:abc", "", false},
		{"img:bad tag", "", false},
		{"ghcr.io/x", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := repositoryPath(tt.target)
		if got != tt.want || ok != tt.ok {
			t.Errorf("repositoryPath(%q) = %q, %t; want %q, %t", tt.target, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzRepositoryPath: a target from a report never panics, and what it accepts is a
// repository path.
func FuzzRepositoryPath(f *testing.F) {
	for _, s := range []string{"alpine:3.10", "10.87.0.1:5000/a/b@sha256:" + strings.Repeat("0", 64), "testdata/x.tar.gz", "a:b:c@d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, target string) {
		repo, ok := repositoryPath(target)
		if ok && (len(repo) < 2 || strings.ContainsAny(repo, ":@ ")) {
			t.Fatalf("repositoryPath(%q) = %q", target, repo)
		}
	})
}
