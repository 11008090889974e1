package trivy

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/demoworld/corpus"
)

// TestEveryCorpusFile makes sure each file of the Trivy corpus is read by the function meant
// for it, so a file added there is not silently left out.
func TestEveryCorpusFile(t *testing.T) {
	dir := corpus.Dir(t, "trivy")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		switch name := e.Name(); {
		case strings.HasSuffix(name, ".json"):
			if _, err := ParseReport(b); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		case strings.HasSuffix(name, ".sarif"):
			if _, err := ParseSARIF(b); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		case strings.HasSuffix(name, ".yaml"):
			if _, err := ParseIgnoreFile(b); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		case name == "trivyignore-plain.txt":
			if _, err := ParseIgnoreFile(b); err == nil {
				t.Errorf("%s: the plain format was read as YAML", name)
			}
		case name == "README.md":
		default:
			t.Errorf("%s: no test reads this corpus file", name)
		}
	}
}

func TestParseReportDebianBuster(t *testing.T) {
	r, err := ParseReport(corpus.Read(t, "trivy", "debian-buster.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.ArtifactType != "container_image" || len(r.Results) != 1 {
		t.Fatalf("report = %+v", r)
	}
	res := r.Results[0]
	if res.Target != "testdata/fixtures/images/debian-buster.tar.gz (debian 10.1)" || res.Class != "os-pkgs" || res.Type != "debian" {
		t.Errorf("result = %q %q %q", res.Target, res.Class, res.Type)
	}
	want := []Vulnerability{
		{VulnerabilityID: "CVE-2019-18276", PkgName: "bash", PkgIdentifier: PkgIdentifier{PURL: "pkg:deb/debian/bash@5.0-4?arch=amd64&distro=debian-10.1"},
			InstalledVersion: "5.0-4", Status: "affected", Severity: "LOW",
			Title: "bash: when effective UID is not equal to its real UID the saved UID is not dropped"},
		{VulnerabilityID: "CVE-2019-18224", PkgName: "libidn2-0", PkgIdentifier: PkgIdentifier{PURL: "pkg:deb/debian/libidn2-0@2.0.5-1?arch=amd64&distro=debian-10.1"},
			InstalledVersion: "2.0.5-1", FixedVersion: "2.0.5-1+deb10u1", Status: "fixed", Severity: "CRITICAL",
			Title: "libidn2: heap-based buffer overflow in idn2_to_ascii_4i in lib/lookup.c"},
	}
	if !slices.Equal(res.Vulnerabilities, want) {
		t.Errorf("vulnerabilities =\n%+v\nwant\n%+v", res.Vulnerabilities, want)
	}
}

func TestParseReportRefuses(t *testing.T) {
	vuln := `{"VulnerabilityID":"CVE-1","PkgName":"a","InstalledVersion":"1","Severity":"HIGH"}`
	report := func(schema, v string) []byte {
		return []byte(`{"SchemaVersion":` + schema + `,"Results":[{"Target":"t","Vulnerabilities":[` + v + `]}]}`)
	}
	tests := []struct {
		name  string
		in    []byte
		words []string
	}{
		{"schema 1", report("1", vuln), []string{"SchemaVersion is 1, want 2"}},
		{"no schema", []byte(`{"Results":[]}`), []string{"SchemaVersion is 0"}},
		{"a list (schema 1 layout)", []byte(`[{"Target":"t","Vulnerabilities":null}]`), []string{"reading the Trivy report"}},
		{"not JSON", []byte("Total: 0 (UNKNOWN: 0)"), []string{"reading the Trivy report"}},
		{"no id", report("2", `{"PkgName":"a","InstalledVersion":"1","Severity":"HIGH"}`), []string{"Results[0].Vulnerabilities[0]", "no VulnerabilityID"}},
		{"no package", report("2", `{"VulnerabilityID":"CVE-1","Severity":"HIGH"}`), []string{"CVE-1", "no PkgName"}},
		{"unknown severity", report("2", `{"VulnerabilityID":"CVE-1","PkgName":"a","InstalledVersion":"1","Severity":"high"}`), []string{`severity "high"`}},
		{"bad purl", report("2", `{"VulnerabilityID":"CVE-1","PkgName":"a","InstalledVersion":"1","Severity":"LOW","PkgIdentifier":{"PURL":"a"}}`), []string{"purl"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseReport(tt.in)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, word := range tt.words {
				if !strings.Contains(err.Error(), word) {
					t.Errorf("error %q lacks %q", err, word)
				}
			}
		})
	}
	if _, err := ParseReport(report("1", vuln)); !errors.Is(err, ErrSchemaVersion) {
		t.Errorf("schema 1: %v is not ErrSchemaVersion", err)
	}
}

func FuzzParseReport(f *testing.F) {
	f.Add([]byte(`{"SchemaVersion":2,"Results":[{"Target":"t","Vulnerabilities":[{"VulnerabilityID":"CVE-1","PkgName":"a","InstalledVersion":"1","FixedVersion":"2","Status":"fixed","Severity":"CRITICAL","PkgIdentifier":{"PURL":"pkg:deb/debian/a@1"}}]}]}`))
	f.Add([]byte(`{"SchemaVersion":2,"Results":null}`))
	f.Add([]byte(`{"SchemaVersion":1}`))
	f.Add([]byte(`[]`))
	ignore, err := ParseIgnoreFile([]byte("vulnerabilities:\n  - {id: CVE-1, purls: [\"pkg:deb/debian/a\"], statement: s, expired_at: 2030-01-01}\n"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseReport(b)
		if err != nil {
			return
		}
		v := Evaluate(r, ignore, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
		total := 0
		for _, res := range r.Results {
			for _, vuln := range res.Vulnerabilities {
				if vuln.VulnerabilityID == "" || !slices.Contains(Severities(), vuln.Severity) {
					t.Fatalf("accepted finding %+v", vuln)
				}
				total++
			}
		}
		counted := 0
		for _, n := range v.Counts {
			counted += n
		}
		if counted != total || len(v.Blocking)+len(v.Unfixed)+len(v.Ignored) > total {
			t.Fatalf("verdict %+v does not add up to %d findings", v, total)
		}
		if v.Summary() == "" {
			t.Fatal("empty summary")
		}
	})
}
