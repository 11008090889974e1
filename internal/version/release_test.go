package version

import "testing"

func TestParseRelease(t *testing.T) {
	good := map[string]string{"0": "0", "1.2.3": "1.2.3", "3.10": "3.10", "01.2": "1.2", "999999999.1": "999999999.1"}
	for in, want := range good {
		r, err := ParseRelease(in)
		if err != nil || r.String() != want {
			t.Errorf("ParseRelease(%q) = %v, %v; want %s", in, r, err, want)
		}
	}
	for _, bad := range []string{"", "v1.2", "1..2", "1.2.", ".1", "1.2a1", "1.2.post1", "1!2.0", "1.2+local", "1 .2", "1234567890.1", "-1.2"} {
		if r, err := ParseRelease(bad); err == nil {
			t.Errorf("ParseRelease(%q) = %v, want an error", bad, r)
		}
	}
}

func TestReleaseCompare(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"1.0", "1.0.0", 0},
		{"1.10", "1.9", 1},
		{"1.31.5", "1.31.10", -1},
		{"2", "1.99.99", 1},
		{"0.5.3", "0.6", -1},
		{"3.11", "3.11.0.0", 0},
	}
	for _, c := range cases {
		a, _ := ParseRelease(c.a)
		b, _ := ParseRelease(c.b)
		if got := a.Compare(b); got != c.want {
			t.Errorf("%s vs %s = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := b.Compare(a); got != -c.want {
			t.Errorf("%s vs %s = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
}

func FuzzParseRelease(f *testing.F) {
	for _, s := range []string{"1.2.3", "3.10", "", "1..2", "99999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRelease(s)
		if err != nil {
			return
		}
		again, err := ParseRelease(r.String())
		if err != nil || again.Compare(r) != 0 || len(again) != len(r) {
			t.Fatalf("%q → %v does not round-trip: %v %v", s, r, again, err)
		}
	})
}
