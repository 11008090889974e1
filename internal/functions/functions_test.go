package functions

import (
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/trust"
)

func TestOfAnUndeclaredFunction(t *testing.T) {
	if _, err := Of("publish-everything"); err == nil || !strings.Contains(err.Error(), `"publish-everything" is not declared`) {
		t.Errorf("err = %v", err)
	}
}

// A caller's copy of a declaration cannot change the table.
func TestOfReturnsACopy(t *testing.T) {
	d, err := Of("release")
	if err != nil {
		t.Fatal(err)
	}
	d.Trust.Needs[0] = "nothing"
	again, _ := Of("release")
	if again.Trust.Needs[0] == "nothing" {
		t.Error("Of handed out the table's own slice")
	}
}

// Rules across the declarations: what publishes is never served from the engine's cache,
// a function that needs the identity token is one that runs the signing tool (the token
// is for Fulcio, which only the signing tool asks), and one that writes needs a credential
// whose value seals its release level (trust.Sealing).
func TestDeclarationsAgree(t *testing.T) {
	for _, fn := range Names() {
		d, _ := Of(fn)
		if len(d.Trust.Needs) > 0 && d.Cache != Never {
			t.Errorf("%s publishes with %v but its cache policy is %q, not never", fn, d.Trust.Needs, d.Cache)
		}
		if slices.Contains(d.Trust.Needs, trust.IdentityToken) && !d.Signs {
			t.Errorf("%s needs the identity token but does not run the signing tool", fn)
		}
		if d.Trust.Tree && len(d.Trust.Needs) > 0 {
			t.Errorf("%s is both tree-keyed and credentialed", fn)
		}
		// Its release level's volumes are sealed with a credential's value: one the
		// project keeps, not only the identity token a job mints.
		all := trust.Caller{Holds: map[trust.Credential]string{}}
		for _, c := range d.Trust.Needs {
			all.Holds[c] = "somewhere"
		}
		if d.Trust.Writes() && len(trust.Sealing(d.Trust, all)) == 0 {
			t.Errorf("%s writes with %v, none of which seals its release level's cache volumes", fn, d.Trust.Needs)
		}
		if d.Why == "" {
			t.Errorf("%s: no reason for its cache policy", fn)
		}
	}
}

// The functions whose images are published build for every default platform unless told
// otherwise; CI's jobs, which only test or scan what they build, for the engine's own.
func TestAllPlatforms(t *testing.T) {
	for fn, want := range map[string]bool{
		"images": true, "push-by-digest": true, "push-platform-by-digest": true, "assemble-index": true,
		"publish-dev": true, "release": true, "release-push": true, "release-publish": true,
		"ci": false, "scan": false, "end-to-end": false, "image": false, "scan-digests": false,
	} {
		if d, err := Of(fn); err != nil || d.AllPlatforms != want {
			t.Errorf("%s: AllPlatforms %v (%v), want %v", fn, d.AllPlatforms, err, want)
		}
	}
}
