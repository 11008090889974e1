package signing

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func jwt(payload string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`)) + "." +
		base64.RawURLEncoding.EncodeToString([]byte(payload)) + ".c2lnbmF0dXJl"
}

func TestParseToken(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	tests := []struct {
		name    string
		raw     string
		subject string
		err     string
	}{
		{"valid", jwt(`{"iss":"https://issuer","sub":"repo:o/r","exp":1700000600}`), "repo:o/r", ""},
		{"email wins over sub", jwt(`{"iss":"https://issuer","sub":"123","email":"a@b.c","exp":1700000600}`), "a@b.c", ""},
		{"trailing newline", jwt(`{"iss":"i","sub":"s","exp":1700000600}`) + "\n", "s", ""},
		{"float exp", jwt(`{"iss":"i","sub":"s","exp":1700000600.5}`), "s", ""},
		{"empty", "  \n", "", "empty"},
		{"two parts", "abc.def", "", "not a JWT"},
		{"payload not base64", "a.!!!.c", "", "not base64url"},
		{"payload not JSON", "a." + base64.RawURLEncoding.EncodeToString([]byte("secret-bytes-here")) + ".c", "", "not a JSON object"},
		{"no issuer", jwt(`{"sub":"s","exp":1700000600}`), "", "no issuer"},
		{"no subject", jwt(`{"iss":"i","exp":1700000600}`), "", "no subject"},
		{"no exp", jwt(`{"iss":"i","sub":"s"}`), "", "no numeric expiry"},
		{"string exp", jwt(`{"iss":"i","sub":"s","exp":"soon"}`), "", "no numeric expiry"},
		{"expired", jwt(`{"iss":"i","sub":"s","exp":1699999999}`), "", "expired at 2023-11-14T22:13:19Z"},
		{"expires now", jwt(`{"iss":"i","sub":"s","exp":1700000000}`), "", "expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := ParseToken([]byte(tt.raw), now)
			if tt.err != "" {
				if !errors.Is(err, ErrToken) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want ErrToken with %q", err, tt.err)
				}
				for _, part := range strings.Split(strings.TrimSpace(tt.raw), ".") {
					if len(part) > 3 && strings.Contains(err.Error(), part) {
						t.Errorf("error quotes the token: %v", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseToken: %v", err)
			}
			if tok.Subject != tt.subject {
				t.Errorf("subject = %q, want %q", tok.Subject, tt.subject)
			}
			for _, s := range []string{fmt.Sprint(tok), fmt.Sprintf("%v %+v %#v %s", tok, tok, tok, tok)} {
				if strings.Contains(s, strings.TrimSpace(tt.raw)[:10]) {
					t.Errorf("formatting shows the token: %s", s)
				}
			}
		})
	}
}

func TestReadToken(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	valid := jwt(`{"iss":"i","sub":"s","exp":1700000600}`)
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	if err := os.WriteFile(file, []byte(valid), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat("a", maxTokenSize+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, stdin, err string
	}{
		{"file", file, "", ""},
		{"stdin", "-", valid, ""},
		{"no path", "", "", "no token file"},
		{"missing file", filepath.Join(dir, "missing"), "", "reading token file"},
		{"too large", big, "", "larger than"},
		{"empty stdin", "-", "", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadToken(tt.path, strings.NewReader(tt.stdin), now)
			if tt.err == "" && err != nil {
				t.Fatalf("ReadToken: %v", err)
			}
			if tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	sentinel := errors.New("upstream said")
	tests := []struct {
		name    string
		err     error
		secrets []string
		want    string
	}{
		{"nil", nil, []string{"x"}, ""},
		{"no secret inside", fmt.Errorf("a: %w", sentinel), []string{"tok"}, "a: upstream said"},
		{"secret inside", fmt.Errorf("bearer tok-123 rejected: %w", sentinel), []string{"tok-123"}, "bearer [redacted] rejected: upstream said"},
		{"two secrets and an empty one", errors.New("u:pw t"), []string{"pw", "", "t"}, "u:[redacted] [redacted]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Redact(tt.err, tt.secrets...)
			if tt.err == nil {
				if got != nil {
					t.Fatalf("Redact(nil) = %v", got)
				}
				return
			}
			if got.Error() != tt.want {
				t.Errorf("Redact = %q, want %q", got.Error(), tt.want)
			}
			if errors.Is(tt.err, sentinel) && !errors.Is(got, sentinel) {
				t.Errorf("redacted error lost its chain")
			}
		})
	}
}
