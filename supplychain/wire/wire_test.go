package wire

import (
	"errors"
	"io"
	"maps"
	"strings"
	"testing"
)

func TestParsePairs(t *testing.T) {
	tests := []struct {
		name    string
		in      []string
		want    map[string]string
		wantErr string
	}{
		{name: "none", in: nil, want: nil},
		{name: "one", in: []string{"A=1"}, want: map[string]string{"A": "1"}},
		{name: "value holds =", in: []string{"A=x=y"}, want: map[string]string{"A": "x=y"}},
		{name: "empty value", in: []string{"A="}, want: map[string]string{"A": ""}},
		{name: "later wins", in: []string{"A=1", "A=2"}, want: map[string]string{"A": "2"}},
		{name: "no =", in: []string{"A"}, wantErr: `--build-arg "A" is not KEY=VALUE`},
		{name: "empty key", in: []string{"=1"}, wantErr: `--build-arg "=1" is not KEY=VALUE`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePairs("--build-arg", tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !maps.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
				t.Fatalf("ParsePairs(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestPairsAreSortedAndReadBack(t *testing.T) {
	m := map[string]string{"B": "2", "A": "x=y", "C": ""}
	got := Pairs(m)
	if strings.Join(got, " ") != "A=x=y B=2 C=" {
		t.Fatalf("Pairs = %q", got)
	}
	back, err := ParsePairs("--build-arg", got)
	if err != nil || !maps.Equal(back, m) {
		t.Fatalf("read back %v, %v; want %v", back, err, m)
	}
}

func TestImmutableClasses(t *testing.T) {
	for class, want := range map[TagClass]bool{ClassVersion: true, ClassCommit: true, ClassMoving: false, "": false} {
		if got := class.Immutable(); got != want {
			t.Errorf("%q.Immutable() = %v, want %v", class, got, want)
		}
	}
}

// FuzzParsePairs: whatever the flag values, parsing never panics, and what it accepts
// renders back to values that parse to the same map.
func FuzzParsePairs(f *testing.F) {
	f.Add("A=1", "B=x=y")
	f.Add("=", "A")
	f.Fuzz(func(t *testing.T, a, b string) {
		m, err := ParsePairs("--x", []string{a, b})
		if err != nil {
			return
		}
		back, err := ParsePairs("--x", Pairs(m))
		if err != nil || !maps.Equal(back, m) {
			t.Fatalf("%q, %q: parsed %v, read back %v, %v", a, b, m, back, err)
		}
	})
}

// failingWriter refuses every write, as a closed stdout does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("stdout closed") }

func TestWriteJSON(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		v       any
		w       io.Writer
		want    string
		wantErr string
	}{
		{name: "an object, indented", v: map[string]any{"digest": "sha256:1", "platforms": []string{"linux/amd64"}},
			want: "{\n  \"digest\": \"sha256:1\",\n  \"platforms\": [\n    \"linux/amd64\"\n  ]\n}\n"},
		{name: "a list", v: []string{"a", "b"}, want: "[\n  \"a\",\n  \"b\"\n]\n"},
		{name: "nothing", v: nil, want: "null\n"},
		{name: "not JSON", v: make(chan int), wantErr: "writing the result: json: unsupported type"},
		{name: "stdout closed", v: 1, w: failingWriter{}, wantErr: "writing the result: stdout closed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			w := tt.w
			if w == nil {
				w = &b
			}
			err := WriteJSON(w, tt.v)
			if b.String() != tt.want || (err == nil) != (tt.wantErr == "") || (err != nil && !strings.HasPrefix(err.Error(), tt.wantErr)) {
				t.Errorf("WriteJSON = %q, %v; want %q, error %q", b.String(), err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestTagPolicy: the policy's commit tags and its checks, which refuse names that could be
// mistaken for each other, for a release version or for a commit tag.
func TestTagPolicy(t *testing.T) {
	tesk := TagPolicy{Latest: "latest", BranchTag: "dev", Branch: "dev", CommitPrefix: "sha-"}
	if got := tesk.CommitTag("0123abc"); got != "sha-0123abc" {
		t.Errorf("CommitTag = %q", got)
	}
	for _, tt := range []struct {
		tag    string
		commit string
		ok     bool
	}{
		{"sha-0123abc", "0123abc", true},
		{"sha-" + strings.Repeat("f", 40), strings.Repeat("f", 40), true},
		{"sha-012345", "", false},
		{"sha-" + strings.Repeat("f", 41), "", false},
		{"sha-0123ABC", "", false},
		{"0123abc", "", false},
	} {
		if c, ok := tesk.CommitOf(tt.tag); c != tt.commit || ok != tt.ok {
			t.Errorf("CommitOf(%q) = %q, %v; want %q, %v", tt.tag, c, ok, tt.commit, tt.ok)
		}
	}
	if _, ok := (TagPolicy{}).CommitOf("0123abcd"); ok {
		t.Error("a policy without a commit prefix reads a commit tag")
	}

	for _, tt := range []struct {
		p       TagPolicy
		wantErr string
	}{
		{tesk, ""},
		{TagPolicy{}, ""},
		{TagPolicy{Latest: "stable", BranchTag: "edge", Branch: "main", CommitPrefix: "git-"}, ""},
		{TagPolicy{BranchTag: "dev"}, "go together"},
		{TagPolicy{Branch: "dev"}, "go together"},
		{TagPolicy{Latest: "dev", BranchTag: "dev", Branch: "dev"}, "follow different things"},
		{TagPolicy{Latest: "1latest"}, "starts with a digit"},
		{TagPolicy{Latest: "la test"}, "a tag is letters"},
		{TagPolicy{CommitPrefix: "-x"}, "a tag is letters"},
		{TagPolicy{Latest: "sha-0123abc", CommitPrefix: "sha-"}, "reads as a commit tag"},
	} {
		err := tt.p.Check()
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%+v.Check() = %v, want %q", tt.p, err, tt.wantErr)
		}
	}

	got, err := ParseTagPolicy(tesk.Flag())
	if err != nil || got != tesk {
		t.Errorf("ParseTagPolicy(Flag()) = %+v, %v; want %+v", got, err, tesk)
	}
	for _, bad := range []string{"", "{", `{"latest": 1}`, `{"lastest": "latest"}`, `{"branchTag": "dev"}`,
		`{"latest":"latest"}{"latest":"stable"}`, `{"latest":"latest"} x`, `{} {}`} {
		if _, err := ParseTagPolicy(bad); err == nil || !strings.HasPrefix(err.Error(), "--tag-policy") {
			t.Errorf("ParseTagPolicy(%q) = %v, want an error naming --tag-policy", bad, err)
		}
	}
}

// FuzzParseTagPolicy: any value is read or refused, never a panic, and what is read
// passes its own check and renders back to the same policy.
func FuzzParseTagPolicy(f *testing.F) {
	f.Add(`{"latest":"latest","branchTag":"dev","branch":"dev","commitPrefix":"sha-"}`)
	f.Add(`{}`)
	f.Add(`{"latest":"sha-0123abc","commitPrefix":"sha-"}`)
	f.Fuzz(func(t *testing.T, value string) {
		p, err := ParseTagPolicy(value)
		if err != nil {
			return
		}
		if err := p.Check(); err != nil {
			t.Fatalf("read %+v fails its check: %v", p, err)
		}
		again, err := ParseTagPolicy(p.Flag())
		if err != nil || again != p {
			t.Fatalf("round trip of %+v = %+v, %v", p, again, err)
		}
	})
}
