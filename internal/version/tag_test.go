package version

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
)

func TestParseReleaseTagAccepted(t *testing.T) {
	tests := []struct {
		tag, version     string
		final, githubPre bool
	}{
		{"v0.11.0", "0.11.0", true, true},
		{"v0.11.0rc1", "0.11.0rc1", false, true},
		{"v1.0.0", "1.0.0", true, false},
		{"v1.0.0a1", "1.0.0a1", false, true},
		{"v1.2.3b4", "1.2.3b4", false, true},
		{"v2.0.0rc0", "2.0.0rc0", false, true},
		{"v0.0.0", "0.0.0", true, true},
		{"v10.20.30rc40", "10.20.30rc40", false, true},
	}
	for _, tt := range tests {
		got, err := ParseReleaseTag(tt.tag)
		if err != nil {
			t.Errorf("ParseReleaseTag(%q): %v", tt.tag, err)
			continue
		}
		if got.Tag() != tt.tag || got.String() != tt.tag {
			t.Errorf("%q: Tag() = %q, String() = %q", tt.tag, got.Tag(), got.String())
		}
		if got.Version() != tt.version {
			t.Errorf("%q: Version() = %q, want %q", tt.tag, got.Version(), tt.version)
		}
		// A tag has one spelling, so its version is already PEP 440's normal form.
		if got.PEP440().String() != tt.version {
			t.Errorf("%q: PEP440() = %q, want %q", tt.tag, got.PEP440(), tt.version)
		}
		if got.Final() != tt.final {
			t.Errorf("%q: Final() = %v, want %v", tt.tag, got.Final(), tt.final)
		}
		if got.GitHubPreRelease() != tt.githubPre {
			t.Errorf("%q: GitHubPreRelease() = %v, want %v", tt.tag, got.GitHubPreRelease(), tt.githubPre)
		}
	}
}

func TestParseReleaseTagRefused(t *testing.T) {
	tests := []struct{ tag, hint string }{
		{"", "empty"},
		{"0.11.0", "leading v"},
		{"v0.11", ""},
		{"v0.11.0-rc.1", "no separator"},
		{"v0.11.0.post1", "no separator"},
		{"v0.11.0.dev1", "no separator"},
		{"v0.11.0+local", "no separator"},
		{"v0.11.0rc", ""},
		{"v01.2.3", "leading zeros"},
		{"v1.02.3", "leading zeros"},
		{"v1.2.03", "leading zeros"},
		{"v1.2.3rc01", "leading zeros"},
		{"V0.11.0", "lowercase"},
		{"v0.11.0RC1", "lowercase"},
		{" v0.11.0", "whitespace"},
		{"v0.11.0\n", "whitespace"},
		{"v1.2.3.4", ""},
		{"v1.2.3c1", ""},
		{"v1.2.3alpha1", ""},
		{"vv1.2.3", ""},
		{"v1.2.3rc1a1", ""},
		{"v99999999999999999999.0.0", "too large"},
	}
	for _, tt := range tests {
		_, err := ParseReleaseTag(tt.tag)
		if err == nil {
			t.Errorf("ParseReleaseTag(%q) succeeded, want an error", tt.tag)
			continue
		}
		msg := err.Error()
		if tt.hint != "too large" && !strings.Contains(msg, AcceptedTagForms) {
			t.Errorf("ParseReleaseTag(%q) error %q does not show the accepted forms", tt.tag, msg)
		}
		if !strings.Contains(msg, tt.hint) {
			t.Errorf("ParseReleaseTag(%q) error %q does not mention %q", tt.tag, msg, tt.hint)
		}
	}
}

func TestReleaseTagOrder(t *testing.T) {
	order := []string{"v0.9.9", "v1.0.0a1", "v1.0.0a2", "v1.0.0b1", "v1.0.0rc1", "v1.0.0rc2", "v1.0.0rc10", "v1.0.0", "v1.0.1a1", "v1.0.1", "v1.10.0", "v10.0.0"}
	tags := make([]ReleaseTag, len(order))
	for i, s := range order {
		tag, err := ParseReleaseTag(s)
		if err != nil {
			t.Fatal(err)
		}
		tags[i] = tag
	}
	for i := range tags {
		for j := range tags {
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			if got := tags[i].Compare(tags[j]); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", tags[i], tags[j], got, want)
			}
		}
	}
}

func TestIsLatest(t *testing.T) {
	published := []string{"v0.10.6", "v0.11.0rc1", "v0.11.0", "latest", "v1.0.0rc1", "0.12.0", "docs-2024", "V9.9.9"}
	tests := []struct {
		tag       string
		published []string
		want      bool
	}{
		{"v0.11.0", published, true},
		{"v0.11.1", published, true},
		{"v0.10.7", published, false},
		{"v0.11.0rc2", published, false},
		{"v1.0.0rc1", published, false},
		{"v0.1.0", nil, true},
		{"v0.1.0", []string{"v0.1.0"}, true},
		{"v0.1.0a1", nil, false},
		{"v0.11.0", []string{"v0.11.1"}, false},
		{"v0.11.0", []string{"v0.11.0.post1", "v0.12.0-rc.1", "v01.0.0"}, true},
	}
	for _, tt := range tests {
		got, err := IsLatest(tt.tag, tt.published)
		if err != nil {
			t.Errorf("IsLatest(%q): %v", tt.tag, err)
			continue
		}
		if got != tt.want {
			t.Errorf("IsLatest(%q, %q) = %v, want %v", tt.tag, tt.published, got, tt.want)
		}
	}
	for _, bad := range []string{"latest", "0.11.0", ""} {
		if _, err := IsLatest(bad, published); err == nil || !strings.Contains(err.Error(), AcceptedTagForms) {
			t.Errorf("IsLatest(%q) error = %v, want one showing the accepted forms", bad, err)
		}
	}
}

// On real tag lists, the highest final release tag is latest and the others are not, and
// every tag the parser accepts is already PEP 440's normal form.
func TestIsLatestUpstreamTags(t *testing.T) {
	dir := corpus.Dir(t, "upstream-tags")
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no tag lists in upstream-tags: %v", err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		names := lines(b)
		var highest *ReleaseTag
		for _, name := range names {
			tag, err := ParseReleaseTag(name)
			if err != nil {
				continue
			}
			if tag.PEP440().String() != tag.Version() {
				t.Errorf("%s: %s is not in normal form (%s)", filepath.Base(file), name, tag.PEP440())
			}
			if tag.Final() && (highest == nil || tag.Compare(*highest) > 0) {
				highest = &tag
			}
		}
		if highest == nil {
			continue
		}
		// IsLatest parses the whole list on each call, so check the highest tag and a spread
		// of the others rather than every pair.
		var others []string
		for _, name := range names {
			if _, err := ParseReleaseTag(name); err == nil && name != highest.Tag() {
				others = append(others, name)
			}
		}
		step := max(1, len(others)/20)
		for i := 0; i < len(others); i += step {
			if ok, err := IsLatest(others[i], names); err != nil || ok {
				t.Errorf("%s: IsLatest(%s) = %v, %v; want false, as %s is higher", filepath.Base(file), others[i], ok, err, highest)
			}
		}
		if ok, err := IsLatest(highest.Tag(), names); err != nil || !ok {
			t.Errorf("%s: IsLatest(%s) = %v, %v; want true", filepath.Base(file), highest, ok, err)
		}
	}
}

func TestReleaseTagJSON(t *testing.T) {
	type plan struct {
		Tag  ReleaseTag  `json:"tag"`
		Prev *ReleaseTag `json:"prev"`
		Zero ReleaseTag  `json:"zero"`
	}
	tag, err := ParseReleaseTag("v0.11.0rc1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(plan{Tag: tag})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"tag":"v0.11.0rc1","prev":null,"zero":null}`; string(b) != want {
		t.Fatalf("json = %s, want %s", b, want)
	}
	var back plan
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Tag.Tag() != "v0.11.0rc1" || back.Tag.Compare(tag) != 0 || back.Zero.Tag() != "" {
		t.Fatalf("round trip gave %+v", back)
	}
	if err := json.Unmarshal([]byte(`{"tag":"0.11.0"}`), &back); err == nil {
		t.Fatal("unmarshalling a non-release tag succeeded")
	}
}

func FuzzParseReleaseTag(f *testing.F) {
	for _, s := range []string{"v0.11.0", "v0.11.0rc1", "v1.0.0a1", "v01.2.3", "v0.11.0-rc.1", "V1.2.3", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tag, err := ParseReleaseTag(s)
		if err != nil {
			if !strings.Contains(err.Error(), AcceptedTagForms) && !strings.Contains(err.Error(), "too large") {
				t.Fatalf("error for %q does not show the accepted forms: %v", s, err)
			}
			return
		}
		if tag.Tag() != s || "v"+tag.Version() != s || tag.PEP440().String() != tag.Version() {
			t.Fatalf("%q: tag %q, version %q, normal form %q", s, tag.Tag(), tag.Version(), tag.PEP440())
		}
		if tag.Compare(tag) != 0 {
			t.Fatalf("%q does not equal itself", s)
		}
		if latest, err := IsLatest(s, []string{s}); err != nil || latest != tag.Final() {
			t.Fatalf("IsLatest(%q, itself) = %v, %v", s, latest, err)
		}
	})
}
