package tokenmac

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	full := func(token, label string) string {
		m := hmac.New(sha256.New, []byte(token))
		m.Write([]byte(label))
		return hex.EncodeToString(m.Sum(nil))
	}
	tests := []struct {
		name         string
		token, label string
		n            int
		want         string
	}{
		{"HMAC-SHA256 of the label keyed by the token, truncated", "ghp_secret", "a label", 8, full("ghp_secret", "a label")[:16]},
		{"the whole MAC", "ghp_secret", "a label", 32, full("ghp_secret", "a label")},
		{"no more than the MAC", "ghp_secret", "a label", 64, full("ghp_secret", "a label")},
		{"nothing for a length below one", "ghp_secret", "a label", -1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Of(tt.token, tt.label, tt.n); got != tt.want {
				t.Errorf("Of = %q, want %q", got, tt.want)
			}
		})
	}
	if Of("a", "l", 16) == Of("b", "l", 16) || Of("a", "l", 16) == Of("a", "m", 16) {
		t.Error("another token or another label gives the same name")
	}
	if strings.Contains(Of("ghp_secret", "l", 32), hex.EncodeToString([]byte("ghp_secret"))) {
		t.Error("the name shows the token")
	}
}
