package upstreams_test

import (
	"strings"
	"testing"

	"dagger/shipyard/models/upstreams"
)

// A release the file declines is not proposed, nor is any older one; a newer release is,
// and patches of the tracked line are applied whatever is declined.
func TestPlanLeavesOutDeclinedProposals(t *testing.T) {
	tests := []struct {
		name         string
		declined     string
		found        []string
		wantChanges  []string
		wantDeclined []string
	}{
		{"the proposed release declined", "1.3.1", []string{"v1.2.4", "v1.3.1"},
			[]string{"project patch 1.2.3→1.2.4 true"}, []string{"1.3.1"}},
		{"a newer release than the decline is proposed", "1.3.1", []string{"v1.3.1", "v1.3.2"},
			[]string{"project proposed 1.2.3→1.3.2 false"}, nil},
		{"a decline beyond the newest release covers it", "1.4.0", []string{"v1.3.1"},
			nil, []string{"1.3.1"}},
		{"a new major after a declined minor", "1.3.1", []string{"v1.3.1", "v2.0.0"},
			[]string{"project proposed 1.2.3→2.0.0 false"}, nil},
		{"nothing to propose", "1.3.1", []string{"v1.2.3"}, nil, nil},
		{"no decline", "", []string{"v1.3.1"}, []string{"project proposed 1.2.3→1.3.1 false"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := planFile(t, []string{"1.2.3"}, upstreams.PolicyNewestMinor, 0)
			f.Integrations["project"].Declined = tt.declined
			got := upstreams.Plan(f, map[string][]upstreams.Version{"project": versions(t, tt.found...)}, upstreams.PyPIInfo{})
			if strings.Join(summary(got), "\n") != strings.Join(tt.wantChanges, "\n") {
				t.Errorf("changes =\n%s\nwant\n%s", strings.Join(summary(got), "\n"), strings.Join(tt.wantChanges, "\n"))
			}
			var declined []string
			for _, c := range got.Declined {
				declined = append(declined, c.To)
			}
			if strings.Join(declined, ",") != strings.Join(tt.wantDeclined, ",") {
				t.Errorf("declined = %v, want %v", declined, tt.wantDeclined)
			}
			text := got.Text()
			for _, to := range tt.wantDeclined {
				if want := "declined project " + to + ", by models/upstreams.json[integrations.project.declined]"; !strings.Contains(text, want) {
					t.Errorf("Text lacks %q:\n%s", want, text)
				}
				if body := got.PRBody(); !strings.Contains(body, "## Declined (not proposed)") || !strings.Contains(body, "**project** [v"+to+"]") {
					t.Errorf("PRBody does not list the decline:\n%s", body)
				}
			}
		})
	}
}

// The decline is read, written back and checked like every other field, and a proposal,
// newer than the decline by construction, spends it.
func TestDeclinedIsAFieldOfTheFile(t *testing.T) {
	const file = `{
  "cloudcoil": {"package": "cloudcoil", "version": "0.5.3", "minor": "0.5"},
  "integrations": {
    "project": {
      "repository": "example/project",
      "tag_prefix": "v",
      "versions": ["1.2.3"],
      "schema_urls": [{"url": "https://example.com/v{version}/crds.yaml"}],
      "policy": "newest-minor",
      "declined": %q
    }
  }
}
`
	f, err := upstreams.Parse([]byte(strings.Replace(file, "%q", `"1.3.1"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Integrations["project"].Declined; got != "1.3.1" {
		t.Fatalf("declined = %q", got)
	}
	out, err := f.Marshal()
	if err != nil || !strings.Contains(string(out), `"declined": "1.3.1"`) {
		t.Fatalf("Marshal lost the decline (%v):\n%s", err, out)
	}

	proposed, err := upstreams.ProposeToUpstreams(out, upstreams.Change{Integration: "project", Kind: upstreams.KindProposed, From: "1.2.3", To: "1.4.0", Retires: []string{"1.2.3"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(proposed), "declined") || !strings.Contains(string(proposed), `"1.4.0"`) {
		t.Errorf("the proposal kept the decline or lost its version:\n%s", proposed)
	}

	for _, bad := range []string{`"1.3"`, `"v1.3.1"`, `"1.3.1rc1"`, `""`} {
		f, err := upstreams.Parse([]byte(strings.Replace(file, "%q", bad, 1)))
		if bad == `""` {
			// Empty is the same as absent.
			if err != nil || f.Integrations["project"] == nil {
				t.Errorf("declined \"\": err %v, integrations %v", err, f.Integrations)
			}
			continue
		}
		if err != nil {
			t.Fatalf("declined %s stopped the file: %v", bad, err)
		}
		if f.Integrations["project"] != nil || len(f.Problems) != 1 ||
			!strings.Contains(f.Problems[0].Problem, "integrations.project.declined") || !strings.Contains(f.Problems[0].Problem, "X.Y.Z") {
			t.Errorf("declined %s: integrations %v, problems %+v; want the entry set aside, naming the field and the form", bad, f.Integrations, f.Problems)
		}
	}
}
