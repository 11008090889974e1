package upstreams_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/pypisim"
	"dagger/shipyard/models/upstreams"
	"dagger/shipyard/models/upstreams/upstreamstest"
)

func TestFetchPyPI(t *testing.T) {
	sim := pypisim.New(t)
	upstreamstest.SeedPyPI(sim)

	info, err := upstreams.FetchPyPI(context.Background(), sim.URL(), "CloudCoil", sim.Client())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range info.Releases {
		got[r.Version] = r.Yanked
	}
	if _, ok := got["0.5.7"]; ok {
		t.Errorf("a version without files must be left out")
	}
	if !got["0.5.5"] {
		t.Errorf("0.5.5 has every file yanked: it is yanked")
	}
	if yanked, ok := got["0.5.4"]; !ok || yanked {
		t.Errorf("0.5.4 has only its sdist yanked: it stays installable (ok=%v yanked=%v)", ok, yanked)
	}
	if info.Name != "cloudcoil" || info.Latest != "0.6.1" || len(info.Releases) != 11 {
		t.Errorf("info = %+v", info)
	}
	// The client asks for the normalised name directly: one request, no redirect.
	if reqs := sim.Requests(); len(reqs) != 1 || reqs[0].Path != "/pypi/cloudcoil/json" || reqs[0].Method != http.MethodGet {
		t.Errorf("requests = %v", reqs)
	}

	f := &upstreams.File{Cloudcoil: upstreams.Cloudcoil{Package: "cloudcoil", Version: "0.5.3", Minor: "0.5"}}
	plan := upstreams.Plan(f, nil, info)
	want := "cloudcoil: 0.5.3 → 0.5.4 (Cloudcoil update within its compatible minor)\n" +
		"cloudcoil: 0.5.3 → 0.6.1 (new Cloudcoil minor: needs a deliberate migration, not applied)\n"
	if plan.Text() != want {
		t.Errorf("plan from PyPI:\n%s\nwant\n%s", plan.Text(), want)
	}
}

func TestFetchPyPIErrors(t *testing.T) {
	sim := pypisim.New(t)
	upstreamstest.SeedPyPI(sim)
	ctx := context.Background()

	if _, err := upstreams.FetchPyPI(ctx, sim.URL(), "no-such-project", sim.Client()); !errors.Is(err, upstreams.ErrPyPINotFound) {
		t.Errorf("unknown project: %v, want ErrPyPINotFound", err)
	}
	sim.FailNext(http.StatusServiceUnavailable)
	if _, err := upstreams.FetchPyPI(ctx, sim.URL(), "cloudcoil", sim.Client()); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("server error: %v", err)
	}
	if _, err := upstreams.FetchPyPI(ctx, sim.URL(), "../admin", sim.Client()); err == nil {
		t.Errorf("a name that is not a project name must be refused before any request")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := upstreams.FetchPyPI(cancelled, sim.URL(), "cloudcoil", sim.Client()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

func TestDecodePyPI(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		want       string // version:yanked list, or "error"
	}{
		{"shape", `{"info":{"name":"x","version":"1.0"},"releases":{"1.0":[{"yanked":false}],"0.9":[{"yanked":true},{"yanked":true}],"0.8":[]}}`, "0.9:true 1.0:false"},
		{"one file of two yanked", `{"info":{},"releases":{"1.0":[{"yanked":true},{"yanked":false}]}}`, "1.0:false"},
		{"no releases object", `{"info":{}}`, "error"},
		{"not JSON", `<html>`, "error"},
		{"wrong type", `{"releases":{"1.0":{"yanked":false}}}`, "error"},
	} {
		info, err := upstreams.DecodePyPI([]byte(tt.body))
		var got []string
		for _, r := range info.Releases {
			y := "false"
			if r.Yanked {
				y = "true"
			}
			got = append(got, r.Version+":"+y)
		}
		s := strings.Join(got, " ")
		if err != nil {
			s = "error"
		}
		if s != tt.want {
			t.Errorf("%s: DecodePyPI = %q (%v), want %q", tt.name, s, err, tt.want)
		}
	}
}

func FuzzDecodePyPI(f *testing.F) {
	f.Add([]byte(`{"info":{"name":"x","version":"1.0"},"releases":{"1.0":[{"yanked":false}],"0.8":[]}}`))
	f.Add([]byte(`{"releases":{}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		info, err := upstreams.DecodePyPI(b)
		if err != nil {
			return
		}
		for i := 1; i < len(info.Releases); i++ {
			if info.Releases[i-1].Version >= info.Releases[i].Version {
				t.Fatalf("releases not sorted and unique: %v", info.Releases)
			}
		}
		f := &upstreams.File{Cloudcoil: upstreams.Cloudcoil{Package: "cloudcoil", Version: "0.5.3", Minor: "0.5"}}
		for _, c := range upstreams.Plan(f, nil, info).Changes {
			if c.Applied && !strings.HasPrefix(c.To, "0.5.") && c.To != "0.5" {
				t.Fatalf("applied %s outside the minor", c.To)
			}
		}
	})
}
