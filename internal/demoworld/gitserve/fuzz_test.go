package gitserve

import (
	"strings"
	"testing"
)

// Whatever a client sends, the request parser answers a request or an error, never a
// panic, and a request it accepts wants something.
func FuzzReadRequest(f *testing.F) {
	want := "0032want " + strings.Repeat("a", 40) + "\n"
	for _, seed := range []string{
		want + "0000" + "0009done\n",
		want + "000ddeepen 1\n0000",
		want + "0032have " + strings.Repeat("b", 40) + "\n0000",
		"0000", "0003", "zzzz", "ffff", "0004", want[:10],
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		r, err := readRequest(strings.NewReader(body))
		if err == nil && len(r.wants) == 0 {
			t.Fatalf("accepted a request that wants nothing: %q", body)
		}
		if err == nil && r.depth < 0 {
			t.Fatalf("accepted depth %d", r.depth)
		}
	})
}
