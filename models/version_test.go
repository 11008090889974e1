package models

import (
	"strconv"
	"strings"
	"testing"
)

func TestAllocate(t *testing.T) {
	tests := []struct {
		name      string
		upstream  string
		published []string
		drafts    []string
		want      string
		wantDraft bool
	}{
		{name: "first release of an upstream is .0", upstream: "1.31.5", want: "1.31.5.0"},
		{name: "other upstreams do not count", upstream: "1.31.5",
			published: []string{"1.31.4.7", "1.32.5.3", "2.31.5.1", "11.31.5.4"}, want: "1.31.5.0"},
		{name: "next after the highest published", upstream: "1.31.5",
			published: []string{"1.31.5.0", "1.31.5.1"}, want: "1.31.5.2"},
		{name: "numeric, not lexical, order", upstream: "1.31.5",
			published: []string{"1.31.5.9", "1.31.5.10", "1.31.5.2"}, want: "1.31.5.11"},
		{name: "tags with a leading v", upstream: "1.31.5",
			published: []string{"v1.31.5.3"}, want: "1.31.5.4"},
		{name: "any source: release, tag, PyPI (yanked included) all take a number", upstream: "2.9.5",
			published: []string{"2.9.5.0", "v2.9.5.1", "2.9.5.4"}, want: "2.9.5.5"},
		{name: "gaps are not refilled", upstream: "2.9.5",
			published: []string{"2.9.5.0", "2.9.5.5"}, want: "2.9.5.6"},
		{name: "bare upstream on PyPI is packaging 0", upstream: "1.31.5",
			published: []string{"1.31.5"}, want: "1.31.5.1"},
		{name: "malformed, foreign and other-release strings ignored", upstream: "1.31.5",
			published: []string{"", "latest", "1.31.5.post1", "1.31.5.1rc1", "1.31.5.1.dev0", "1.31.5.1+local",
				"1!1.31.5.1", "1.31.5.-1", "1.31.5.", "1.31.5.99999999999999999999", "vv1.31.5.2", "1.31.5.0.1"},
			want: "1.31.5.0"},
		// PyPI compares versions in PEP 440 normal form: a spelling it treats as the
		// same release takes that release's number.
		{name: "leading zero: 1.31.5.01 is 1.31.5.1", upstream: "1.31.5",
			published: []string{"1.31.5.01"}, want: "1.31.5.2"},
		{name: "leading zeros in the upstream part", upstream: "1.31.5",
			published: []string{"1.31.05.3"}, want: "1.31.5.4"},
		{name: "trailing zero: 1.31.5.1.0 is 1.31.5.1", upstream: "1.31.5",
			published: []string{"1.31.5.1.0"}, want: "1.31.5.2"},
		{name: "trailing zeros: 1.31.5.0.0 is 1.31.5.0", upstream: "1.31.5",
			published: []string{"1.31.5.0.0"}, want: "1.31.5.1"},
		{name: "capital V and mixed spellings", upstream: "1.31.5",
			published: []string{"V1.31.5.3", "1.31.5"}, want: "1.31.5.4"},
		{name: "a draft at a PyPI-equal published version is stale", upstream: "1.31.5",
			published: []string{"1.31.5.01"}, drafts: []string{"1.31.5.1"}, want: "1.31.5.2"},
		{name: "surrounding whitespace is tolerated", upstream: "1.31.5",
			published: []string{" 1.31.5.2\r"}, want: "1.31.5.3"},
		{name: "draft above published is reused", upstream: "1.31.5",
			published: []string{"1.31.5.0", "1.31.5.1"}, drafts: []string{"1.31.5.2"},
			want: "1.31.5.2", wantDraft: true},
		{name: "draft for a first release is reused", upstream: "1.31.5",
			drafts: []string{"v1.31.5.0"}, want: "1.31.5.0", wantDraft: true},
		{name: "highest of several live drafts is reused", upstream: "1.31.5",
			published: []string{"1.31.5.1"}, drafts: []string{"1.31.5.3", "1.31.5.2"},
			want: "1.31.5.3", wantDraft: true},
		{name: "draft equal to published is stale", upstream: "1.31.5",
			published: []string{"1.31.5.2"}, drafts: []string{"1.31.5.2"}, want: "1.31.5.3"},
		{name: "draft below published is stale and never hit", upstream: "1.31.5",
			published: []string{"1.31.5.0", "1.31.5.4"}, drafts: []string{"1.31.5.2"}, want: "1.31.5.5"},
		{name: "drafts of other upstreams ignored", upstream: "1.31.5",
			published: []string{"1.31.5.0"}, drafts: []string{"1.31.6.7", "1.31.5"}, want: "1.31.5.1"},
		{name: "stale duplicates do not matter", upstream: "1.31.5",
			published: []string{"1.31.5.2"}, drafts: []string{"1.31.5.1", "v1.31.5.1", "1.31.5.4"},
			want: "1.31.5.4", wantDraft: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reused, err := Allocate(tt.upstream, tt.published, tt.drafts)
			if err != nil {
				t.Fatalf("Allocate: %v", err)
			}
			if got != tt.want || reused != tt.wantDraft {
				t.Errorf("Allocate = %q, reused %v; want %q, reused %v", got, reused, tt.want, tt.wantDraft)
			}
		})
	}
}

func TestAllocateErrors(t *testing.T) {
	tests := []struct {
		name      string
		upstream  string
		published []string
		drafts    []string
		wantErr   string
	}{
		{name: "empty upstream", upstream: "", wantErr: "not a canonical"},
		{name: "two parts", upstream: "1.31", wantErr: "not a canonical"},
		{name: "four parts", upstream: "1.31.5.0", wantErr: "not a canonical"},
		{name: "leading zero", upstream: "1.031.5", wantErr: "not a canonical"},
		{name: "leading v", upstream: "v1.31.5", wantErr: "not a canonical"},
		{name: "prerelease", upstream: "1.31.5-rc.1", wantErr: "not a canonical"},
		{name: "sign", upstream: "+1.31.5", wantErr: "not a canonical"},
		{name: "overflow", upstream: "1.31.18446744073709551616", wantErr: "not a canonical"},
		{name: "duplicate reservation", upstream: "1.31.5", published: []string{"1.31.5.0"},
			drafts: []string{"1.31.5.1", "v1.31.5.1"}, wantErr: "reserve the same version"},
		{name: "packaging exhausted", upstream: "1.31.5",
			published: []string{"1.31.5.18446744073709551615"}, wantErr: "cannot be incremented"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := Allocate(tt.upstream, tt.published, tt.drafts)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Allocate = %q, %v; want error containing %q", got, err, tt.wantErr)
			}
		})
	}
}

func TestReleaseBranch(t *testing.T) {
	tests := []struct {
		version, want string
		wantErr       bool
	}{
		{version: "1.31.5.2", want: "release-1.31"},
		{version: "1.31.5.10", want: "release-1.31"},
		{version: "v2.9.5.0", want: "release-2.9"},
		{version: "0.0.1", want: "release-0.0"},
		{version: "1.31", wantErr: true},
		{version: "1.31.5.2.1", wantErr: true},
		{version: "1.031.5.2", wantErr: true},
		{version: "1.31.5.post1", wantErr: true},
		{version: " 1.31.5.2", wantErr: true},
		{version: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			got, err := ReleaseBranch(tt.version)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ReleaseBranch(%q) = %q, %v; want %q, error %v", tt.version, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// FuzzAllocate checks the allocation invariants on arbitrary version lists:
// the result is a canonical version of the requested upstream, never equal to
// a published version of it, and either above all of them or a reused draft.
func FuzzAllocate(f *testing.F) {
	f.Add("1.31.5", "1.31.5.0\n1.31.5.9\n1.31.5.10", "1.31.5.11")
	f.Add("1.31.5", "v1.31.5.2\n1.31.5", "1.31.5.1\n1.31.5.01")
	f.Add("0.0.0", "", "")
	f.Fuzz(func(t *testing.T, upstream, published, drafts string) {
		pub := strings.Split(published, "\n")
		dr := strings.Split(drafts, "\n")
		got, reused, err := Allocate(upstream, pub, dr)
		if err != nil {
			return
		}
		v, full, ok := parseTagged(got)
		if !ok || !full || v.upstream.String() != upstream || v.String() != got {
			t.Fatalf("Allocate(%q) = %q: not a canonical version of the upstream", upstream, got)
		}
		for _, p := range pub {
			n, ok := publishedPackaging(p, v.upstream)
			if ok && n >= v.packaging {
				t.Fatalf("Allocate = %q, not above published %q", got, p)
			}
		}
		if reused {
			found := false
			for _, d := range dr {
				if dv, full, ok := parseTagged(d); ok && full && dv == v {
					found = true
				}
			}
			if !found {
				t.Fatalf("Allocate = %q reused, but no draft reserves it", got)
			}
		} else if v.packaging > 0 {
			// Without a draft the number is the successor of a published one.
			prev := v.upstream.String() + "." + strconv.FormatUint(v.packaging-1, 10)
			found := false
			for _, p := range pub {
				if n, ok := publishedPackaging(p, v.upstream); ok && n == v.packaging-1 {
					found = true
				}
			}
			if !found {
				t.Fatalf("Allocate = %q, but %s was never published", got, prev)
			}
		}
	})
}
