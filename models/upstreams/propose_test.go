package upstreams_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/models/upstreams"
	"dagger/shipyard/models/upstreams/upstreamstest"
)

// proposal returns the fixture plan's proposal of an integration.
func proposal(t *testing.T, plan upstreams.Updates, name string) upstreams.Change {
	t.Helper()
	for _, c := range plan.Changes {
		if c.Integration == name && c.Kind == upstreams.KindProposed {
			return c
		}
	}
	t.Fatalf("the fixture plan proposes nothing for %s", name)
	return upstreams.Change{}
}

func TestProposeAddsTheLineAndItsSchemaURLs(t *testing.T) {
	f, b := fixtureFile(t)
	_, plan := fixturePlan(t)
	c := proposal(t, plan, "istio")
	before := slices.Clone(f.Integrations["istio"].Versions)
	after, err := upstreams.ProposeToUpstreams(b, c)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := upstreams.Parse(after)
	if err != nil {
		t.Fatal(err)
	}
	in := parsed.Integrations["istio"]
	// Istio tracks the newest minor: the proposal replaces its line.
	if want := []string{c.To}; !slices.Equal(in.Versions, want) || slices.Equal(before, want) {
		t.Errorf("istio matrix %v, want %v", in.Versions, want)
	}
	to, _ := upstreams.ParseVersion(c.To)
	urls, err := in.SchemaURLsFor(to)
	if err != nil || !slices.Equal(urls, c.SchemaURLs) || len(urls) == 0 {
		t.Errorf("schema URLs of %s: %v (%v), the proposal carries %v", c.To, urls, err, c.SchemaURLs)
	}
	// Nothing else of the file moves.
	for name, other := range parsed.Integrations {
		if name != "istio" && !slices.Equal(other.Versions, f.Integrations[name].Versions) {
			t.Errorf("%s changed", name)
		}
	}

	cookie := upstreamstest.ReadFile(t, upstreams.CookiecutterPath("istio"))
	edited, err := upstreams.ProposeToCookiecutter(cookie, *f.Integrations["istio"], c)
	if err != nil {
		t.Fatal(err)
	}
	if err := upstreams.CheckCookiecutter(edited, *in); err != nil {
		t.Errorf("the proposed cookiecutter.yaml disagrees with the proposed upstreams.json: %v", err)
	}
	if first := strings.SplitN(string(cookie), "\n", 2)[0]; !bytes.HasPrefix(edited, []byte(first)) {
		t.Errorf("the comment %q was lost", first)
	}
}

func TestProposeRefuses(t *testing.T) {
	_, plan := fixturePlan(t)
	istio := proposal(t, plan, "istio")
	tests := []struct {
		name   string
		change upstreams.Change
		want   string
	}{
		{"a patch", upstreams.Change{Integration: "istio", Kind: upstreams.KindPatch, From: "1.24.2", To: "1.24.4"}, "only a proposal"},
		{"unknown integration", upstreams.Change{Integration: "nope", Kind: upstreams.KindProposed, To: "1.0.0"}, "not in the file"},
		{"not beyond the tracked lines", func() upstreams.Change { c := istio; c.To = "1.24.9"; return c }(), "is not beyond the tracked line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, b := fixtureFile(t)
			err := f.Propose(tc.change)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), upstreams.FilePath) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if out, _ := f.Marshal(); !bytes.Equal(out, b) {
				t.Error("a refused proposal changed the file")
			}
		})
	}
}

func TestPRBodyTellsTheReviewerWhatToDo(t *testing.T) {
	_, plan := fixturePlan(t)
	body := plan.PRBody()
	for _, want := range []string{
		"never merged automatically",
		"  - [ ] review the commit of this pull request that moves the matrix of models/upstreams.json and models/istio/cookiecutter.yaml to 1.25.1",
		"  - [ ] to decline, set `\"declined\": \"1.25.1\"` in `integrations.istio` of `models/upstreams.json` on the base branch",
		"  - [ ] support policy and cluster CI images: add the 1.33 line, retire 1.29.13 (end of life)",
		"  - [ ] migrate the template and the generator to Cloudcoil 0.6",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the body lacks %q:\n%s", want, body)
		}
	}
}
