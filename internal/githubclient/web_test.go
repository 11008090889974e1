package githubclient

import (
	"strings"
	"testing"

	"dagger/shipyard/internal/github"
)

func TestWebURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		api, want, wantErr string
	}{
		{api: "", want: "https://github.com/"},
		{api: "https://api.github.com/", want: "https://github.com/"},
		{api: "https://api.github.com", want: "https://github.com/"},
		{api: "https://ghe.example.org/api/v3/", want: "https://ghe.example.org/"},
		{api: "https://ghe.example.org/api/v3", want: "https://ghe.example.org/"},
		{api: "https://example.org/github/api/v3/", want: "https://example.org/github/"},
		{api: "https://ghe.example.org:8443/api/v3/", want: "https://ghe.example.org:8443/"},
		{api: "http://127.0.0.1:8080/", want: "https://github.com/"},
		{api: "ftp://api.github.com/", wantErr: "want http(s)"},
		{api: "https://user:pw@ghe.example.org/api/v3/", wantErr: "without credentials"},
		{api: "api.github.com", wantErr: "want http(s)"},
	}
	for _, tt := range tests {
		t.Run(tt.api, func(t *testing.T) {
			t.Parallel()
			got, err := github.WebURL(tt.api)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("WebURL(%q) = %q, %v; want error %q", tt.api, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("WebURL(%q) = %q, %v; want %q", tt.api, got, err, tt.want)
			}
		})
	}
}
