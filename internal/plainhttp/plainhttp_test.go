package plainhttp

import "testing"

func TestAllowed(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.8.9.10": true, "::1": true, "[::1]": true, "localhost": true, "LOCALHOST": true,
		"10.87.0.1": true,
		"10.87.0.2": false, "10.0.0.1": false, "192.168.1.1": false, "registry.local": false,
		"api.github.com": false, "docker.io": false, "": false, "127.0.0.1.example.com": false,
	} {
		if got := Allowed(host); got != want {
			t.Errorf("Allowed(%q) = %t, want %t", host, got, want)
		}
	}
}
