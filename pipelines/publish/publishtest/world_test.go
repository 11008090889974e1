package publishtest

import (
	"strings"
	"testing"
)

// TestURLSecret: a token endpoint's secret material is its path and query, so the local
// registry's address (127.0.0.1 and a port that may share its first digits) is never taken
// for a leak, while the URL itself and its path still are.
func TestURLSecret(t *testing.T) {
	const endpoint = "http://127.0.0.1:40567/_apis/distributedtask/hubs/build/plans/q3jx7/idtoken?api-version=2.0"
	secret := URLSecret(endpoint)
	tests := []struct {
		text string
		leak bool
	}{
		{"127.0.0.1:40123/elixircloud/tesk-core-filer@sha256:0123", false},
		{"http://127.0.0.1:40567/", false},
		{"GET " + endpoint, true},
		{"GET /_apis/distributedtask/hubs/build/plans/q3jx7/idtoken", true},
	}
	for _, tt := range tests {
		found := false
		for i := 0; i+12 <= len(secret); i++ {
			found = found || strings.Contains(tt.text, secret[i:i+12])
		}
		if found != tt.leak {
			t.Errorf("leak found = %v in %q, want %v", found, tt.text, tt.leak)
		}
	}
	if got := URLSecret("not a url\x7f"); got != "not a url\x7f" {
		t.Errorf("an unparsable URL is kept whole, got %q", got)
	}
}
