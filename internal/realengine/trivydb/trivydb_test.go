package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aquasecurity/trivy-db/pkg/db"
	"github.com/aquasecurity/trivy-db/pkg/types"
	"github.com/aquasecurity/trivy-db/pkg/vulnsrc/debian"
	"github.com/aquasecurity/trivy-db/pkg/vulnsrc/vulnerability"
	debversion "github.com/knqyf263/go-deb-version"
)

// status is a dpkg status file in Debian 12's shape: a package with a plain version, one
// whose source differs, one with a binNMU source version, one only configured-half, a
// multi-line field.
const status = `Package: tar
Essential: yes
Status: install ok installed
Priority: required
Version: 1.34+dfsg-1.2+deb12u1
Description: GNU version of the tar archiving utility
 Tar is a program for packaging a set of files.

Package: gzip
Status: install ok installed
Version: 1.12-1
Architecture: amd64

Package: libbash-extra
Source: bash
Status: install ok installed
Version: 5.2.15-2+b7

Package: bash
Source: bash (5.2.15-2)
Status: install ok installed
Version: 5.2.15-2+b7

Package: sed
Status: install ok installed
Version: 4.9-1

Package: removed-one
Status: deinstall ok config-files
Version: 1.0-1
`

func TestInstalledSources(t *testing.T) {
	got, err := InstalledSources(strings.NewReader(status))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"tar": "1.34+dfsg-1.2+deb12u1", "gzip": "1.12-1", "bash": "5.2.15-2", "sed": "4.9-1"}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q, want %q", k, got[k], v)
		}
	}
}

func TestInstalledSourcesRejectsWhatItCannotRead(t *testing.T) {
	for name, in := range map[string]string{
		"no version":   "Package: tar\nStatus: install ok installed\n",
		"not a field":  "Package: tar\nthis line has no colon\n",
		"no version 2": "Package: tar\nStatus: install ok installed\n\nPackage: gzip\nVersion: 1\n",
	} {
		if _, err := InstalledSources(strings.NewReader(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestAdvisories(t *testing.T) {
	installed, err := InstalledSources(strings.NewReader(status))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		set                         string
		blocking, unfixed, lowFixed int
	}{
		{"pass", 0, 1, 1},
		{"gate", 2, 1, 1},
	} {
		got, err := Advisories(tc.set, installed)
		if err != nil {
			t.Fatal(err)
		}
		var blocking, unfixed, lowFixed int
		for _, a := range got {
			if a.Installed != installed[a.Source] {
				t.Errorf("%s: %s placed against %q, installed %q", tc.set, a.ID, a.Installed, installed[a.Source])
			}
			switch {
			case a.Fixed == "" && a.Fixable, a.Fixed != "" && !a.Fixable:
				t.Errorf("%s: %s fixable %v but fixed in %q", tc.set, a.ID, a.Fixable, a.Fixed)
			case a.Fixed == "" && a.Severity == Critical:
				unfixed++
			case a.Fixed != "" && (a.Severity == Critical || a.Severity == High):
				blocking++
			case a.Fixed != "" && a.Severity == Low:
				lowFixed++
			}
			if a.Fixed != "" {
				// Trivy reports a fixable advisory only while the installed version is below
				// the fixed one, in Debian's ordering.
				in, err1 := debversion.NewVersion(a.Installed)
				fx, err2 := debversion.NewVersion(a.Fixed)
				if err1 != nil || err2 != nil || !in.LessThan(fx) {
					t.Errorf("%s: %s installed %q is not below fixed %q (%v, %v)", tc.set, a.ID, a.Installed, a.Fixed, err1, err2)
				}
			}
		}
		if blocking != tc.blocking || unfixed != tc.unfixed || lowFixed != tc.lowFixed {
			t.Errorf("%s: %d blocking, %d unfixed CRITICAL, %d fixable LOW; want %d, %d, %d",
				tc.set, blocking, unfixed, lowFixed, tc.blocking, tc.unfixed, tc.lowFixed)
		}
	}
	if _, err := Advisories("gate", map[string]string{"tar": "1"}); err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("a missing package: %v", err)
	}
	if _, err := Advisories("nope", installed); err == nil || !strings.Contains(err.Error(), "gate, pass") {
		t.Errorf("an unknown set: %v", err)
	}
}

// The written database, read back with trivy-db's own Debian source (what Trivy's Debian
// detector calls) and its vulnerability bucket, and metadata.json at the schema version.
func TestWriteReadsBackAsTrivyReadsIt(t *testing.T) {
	installed, err := InstalledSources(strings.NewReader(status))
	if err != nil {
		t.Fatal(err)
	}
	advisories, err := Advisories("gate", installed)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	now := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	if err := Write(cache, advisories, now); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(cache, "db", "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Version    int
		NextUpdate time.Time
	}
	if err := json.Unmarshal(b, &meta); err != nil || meta.Version != db.SchemaVersion || !meta.NextUpdate.After(now) {
		t.Errorf("metadata.json: %s (%v)", b, err)
	}

	if err := db.Init(filepath.Join(cache, "db")); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src := debian.NewVulnSrc()
	for _, a := range advisories {
		got, err := src.Get(db.GetParams{Release: Release, PkgName: a.Source})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].VulnerabilityID != a.ID || got[0].FixedVersion != a.Fixed {
			t.Errorf("%s: Debian %s advisories %+v, want %s fixed in %q", a.Source, Release, got, a.ID, a.Fixed)
			continue
		}
		if wantStatus := types.StatusAffected; a.Fixed == "" && got[0].Status != wantStatus {
			t.Errorf("%s: unfixed advisory has status %v, want %v", a.ID, got[0].Status, wantStatus)
		}
		if got[0].Severity.String() != string(a.Severity) {
			t.Errorf("%s: advisory severity %v, want %s", a.ID, got[0].Severity, a.Severity)
		}
		v, err := db.Config{}.GetVulnerability(a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if v.VendorSeverity[vulnerability.Debian].String() != string(a.Severity) || v.Title == "" {
			t.Errorf("%s: vulnerability %+v", a.ID, v)
		}
	}
	if got, _ := src.Get(db.GetParams{Release: Release, PkgName: "coreutils"}); len(got) != 0 {
		t.Errorf("coreutils has advisories: %+v", got)
	}
}
