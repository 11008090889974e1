package reponame

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in         string
		owner      string
		repo       string
		wantReason string
	}{
		{in: "elixir-cloud-aai/tesk-core", owner: "elixir-cloud-aai", repo: "tesk-core"},
		{in: "cloudcoil/models-kubernetes", owner: "cloudcoil", repo: "models-kubernetes"},
		{in: "a/b", owner: "a", repo: "b"},
		{in: "Org9/repo_name.v2", owner: "Org9", repo: "repo_name.v2"},
		{in: "o/.github", owner: "o", repo: ".github"},
		{in: "o/...", owner: "o", repo: "..."},
		{in: strings.Repeat("a", 39) + "/" + strings.Repeat("b", 100), owner: strings.Repeat("a", 39), repo: strings.Repeat("b", 100)},

		{in: "", wantReason: "no \"/\""},
		{in: "tesk-core", wantReason: "no \"/\""},
		{in: "a/b/c", wantReason: "more than one"},
		{in: "https://github.com/a/b", wantReason: "more than one"},
		{in: "/b", wantReason: "owner is empty"},
		{in: "a/", wantReason: "name is empty"},
		{in: "-a/b", wantReason: "owner may hold"},
		{in: "a-/b", wantReason: "owner may hold"},
		{in: "a_b/c", wantReason: "owner may hold"},
		{in: " a/b", wantReason: "owner may hold"},
		{in: "a/b ", wantReason: "name may hold"},
		{in: "a/b\n", wantReason: "name may hold"},
		{in: "a/b?x=1", wantReason: "name may hold"},
		{in: "ä/b", wantReason: "owner may hold"},
		{in: "a/.", wantReason: "cannot be"},
		{in: "a/..", wantReason: "cannot be"},
		{in: strings.Repeat("a", 40) + "/b", wantReason: "longer than 39"},
		{in: "a/" + strings.Repeat("b", 101), wantReason: "longer than 100"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if tt.wantReason != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantReason) || !strings.Contains(err.Error(), "is not owner/name") {
					t.Fatalf("Parse(%q) = %+v, %v; want an error saying %q", tt.in, got, err, tt.wantReason)
				}
				return
			}
			if err != nil || got.Owner != tt.owner || got.Repo != tt.repo || got.String() != tt.in {
				t.Fatalf("Parse(%q) = %+v, %v; want %s / %s", tt.in, got, err, tt.owner, tt.repo)
			}
		})
	}
}

// FuzzParse: a name that parses prints back as the input, and its parts hold no "/";
// an error is short and never a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"elixir-cloud-aai/tesk-core", "a/..", "a/b/c", "", "-/-", strings.Repeat("x", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(s)
		if err != nil {
			if len(err.Error()) > 400 {
				t.Fatalf("error of %d bytes", len(err.Error()))
			}
			return
		}
		if n.String() != s || strings.Contains(n.Owner, "/") || strings.Contains(n.Repo, "/") || n.Owner == "" || n.Repo == "" {
			t.Fatalf("Parse(%q) = %+v", s, n)
		}
	})
}
