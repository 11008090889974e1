package modelenv

import (
	"testing"
)

func TestNewestUpstream(t *testing.T) {
	cases := []struct {
		name     string
		versions []string
		want     string
		wantErr  bool
	}{
		{"numeric, not string order", []string{"1.9.12", "1.31.5", "1.10.3"}, "1.31.5", false},
		{"one", []string{"2.16.1"}, "2.16.1", false},
		{"patch decides across minors", []string{"1.30.10", "1.31.9"}, "1.31.9", false},
		{"empty list", nil, "", true},
	}
	for _, c := range cases {
		got, err := NewestUpstream(LineConfig{Path: UpdateReleasesWorkflow, Versions: c.versions, Prefix: "v"})
		if (err != nil) != c.wantErr || got != c.want {
			t.Errorf("%s: NewestUpstream = %q, %v; want %q, error %v", c.name, got, err, c.want, c.wantErr)
		}
	}
}
