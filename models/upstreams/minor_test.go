package upstreams_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/models/upstreams"
)

// realReleases are Cloudcoil core's release tags (the corpus' tags.txt), pre-releases
// left for parseFinal to refuse.
func realReleases(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpus.Dir(t, "cloudcoil"), "releases", "tags.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		out = append(out, strings.Fields(line)[0])
	}
	return out
}

// On the real repository the evidence disagrees: the template's lower bound is on 0.4,
// while the hook locks 0.5.8, VERSIONING.md recommends ~=0.5.0 and the real model
// repositories lock 0.5.x. The current minor is 0.5, and the one migration is named.
func TestCurrentMinorOfTheRealRepository(t *testing.T) {
	root := filepath.Join(corpus.Dir(t, "cloudcoil"), "tree")
	template, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(upstreams.TemplatePyproject)))
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := upstreams.FindRequirements(upstreams.TemplatePyproject, template, "cloudcoil")
	if err != nil || len(reqs) == 0 || reqs[0].Table != "project.dependencies" {
		t.Fatalf("the real template's requirements: %+v (%v)", reqs, err)
	}
	versioning, err := os.ReadFile(filepath.Join(root, upstreams.VersioningPath))
	if err != nil {
		t.Fatal(err)
	}
	rec := upstreams.RecommendedSpecifier(versioning)
	if rec != "~=0.5.0" {
		t.Fatalf("VERSIONING.md recommends %q, want ~=0.5.0", rec)
	}
	d, err := upstreams.CurrentMinor(upstreams.MinorEvidence{
		Requirement: reqs[0].Text, At: fmt.Sprintf("%s:%d", upstreams.TemplatePyproject, reqs[0].Line),
		Releases: realReleases(t), Recommended: rec,
		// models-cert-manager 1.17.1.0, models-velero 1.15.2.1 and models-sealed-secrets' main.
		Locked: []string{"0.5.6", "0.5.0", "0.5.8"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if d.Minor.String() != "0.5" || d.Version != "0.5.8" {
		t.Errorf("current minor %s at %s, want 0.5 at 0.5.8", d.Minor, d.Version)
	}
	text := strings.Join(d.Reasons, "\n")
	for _, want := range []string{"locks the newest release it admits, 0.5.8", "recommends cloudcoil~=0.5.0: agrees", "(all on 0.5)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the reasons lack %q:\n%s", want, text)
		}
	}
	if !strings.Contains(d.Migration, "is on 0.4") || !strings.Contains(d.Migration, "raise it to >=0.5.8") {
		t.Errorf("migration %q", d.Migration)
	}
}

// The rule on its own: the minor of the newest release the requirement admits.
func TestCurrentMinorRules(t *testing.T) {
	releases := []string{"0.4.0", "0.4.10", "0.5.0", "0.5.8", "0.6.0rc1", "1.0.0"}
	tests := []struct {
		name, req, rec                      string
		releases, locked                    []string
		wantMinor, wantVersion, wantReasons string
		migration                           bool
		wantErr                             string
	}{
		{name: "unbounded reaches the newest major", req: "cloudcoil>=0.4.0", releases: releases, wantMinor: "1.0", wantVersion: "1.0.0", migration: true},
		{name: "bounded below the next minor", req: "cloudcoil>=0.4.2,<0.5", releases: releases, wantMinor: "0.4", wantVersion: "0.4.10"},
		{name: "compatible release", req: "cloudcoil~=0.5.0", releases: releases, wantMinor: "0.5", wantVersion: "0.5.8"},
		// ~=0.5 is >=0.5,==0.*: every 0.x from 0.5 on; 0.6.0rc1 is no final release.
		{name: "compatible release of a minor", req: "cloudcoil~=0.5", releases: releases, wantMinor: "0.5", wantVersion: "0.5.8"},
		{name: "no release admitted", req: "cloudcoil>=2.0.0", releases: releases, wantMinor: "2.0", wantVersion: "2.0.0", wantReasons: "no release it admits"},
		{name: "PyPI unread", req: "cloudcoil>=0.4.0", wantMinor: "0.4", wantVersion: "0.4.0"},
		{name: "a recommendation that disagrees", req: "cloudcoil>=0.5.0,<0.6", rec: "~=0.4.0", releases: releases, wantMinor: "0.5", wantVersion: "0.5.8", wantReasons: "recommends cloudcoil~=0.4.0: disagrees"},
		{name: "a lock elsewhere", req: "cloudcoil>=0.5.0,<0.6", locked: []string{"0.5.1", "0.4.3"}, releases: releases, wantMinor: "0.5", wantVersion: "0.5.8", wantReasons: "not on 0.5: 0.4.3"},
		{name: "no lower bound", req: "cloudcoil", wantErr: "no lower bound"},
		{name: "an unknown clause", req: "cloudcoil!=0.5.1", wantErr: `the clause "!=0.5.1"`},
		{name: "no requirement", req: "", wantErr: "no requirement on cloudcoil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := upstreams.CurrentMinor(upstreams.MinorEvidence{Requirement: tt.req, At: "pyproject.toml:9", Releases: tt.releases, Recommended: tt.rec, Locked: tt.locked})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Minor.String() != tt.wantMinor || d.Version != tt.wantVersion {
				t.Errorf("minor %s at %s, want %s at %s", d.Minor, d.Version, tt.wantMinor, tt.wantVersion)
			}
			if (d.Migration != "") != tt.migration {
				t.Errorf("migration %q, want one: %v", d.Migration, tt.migration)
			}
			if tt.wantReasons != "" && !strings.Contains(strings.Join(d.Reasons, "\n"), tt.wantReasons) {
				t.Errorf("reasons %q lack %q", d.Reasons, tt.wantReasons)
			}
		})
	}
}
