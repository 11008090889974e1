package modelrelease

import "testing"

func TestNewestUpstream(t *testing.T) {
	cases := []struct {
		name, pyproject, want string
		wantErr               bool
	}{
		{"numeric, not string order", "[tool.cloudcoil-models]\nupstream-versions = [\"1.9.12\", \"1.31.5\", \"1.10.3\"]\nversion-prefix = \"v\"\n", "1.31.5", false},
		{"one", "[tool.cloudcoil-models]\nupstream-versions = [\"2.16.1\"]\nversion-prefix = \"v\"\n", "2.16.1", false},
		{"patch decides", "[tool.cloudcoil-models]\nupstream-versions = [\"1.31.10\", \"1.31.9\"]\nversion-prefix = \"v\"\n", "1.31.10", false},
		{"empty list", "[tool.cloudcoil-models]\nupstream-versions = []\nversion-prefix = \"v\"\n", "", true},
		{"no table", "[project]\nname = \"x\"\n", "", true},
	}
	for _, c := range cases {
		got, err := NewestUpstream([]byte(c.pyproject))
		if (err != nil) != c.wantErr || got != c.want {
			t.Errorf("%s: NewestUpstream = %q, %v; want %q, error %v", c.name, got, err, c.want, c.wantErr)
		}
	}
}
