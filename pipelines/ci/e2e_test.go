package ci

import (
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/trust"
	"strings"
	"testing"
)

func TestKubeconfigVolumeNameIsDeterministic(t *testing.T) {
	a := kubeconfigVolumeFor(trust.Untrusted(), pins.DefaultPins(), []string{"sha256:1", "k3s", "filer=id1"})
	if b := kubeconfigVolumeFor(trust.Untrusted(), pins.DefaultPins(), []string{"filer=id1", "sha256:1", "k3s"}); a != b {
		t.Errorf("same inputs in another order: %q, %q", a, b)
	}
	for _, other := range [][]string{{"sha256:2", "k3s", "filer=id1"}, {"sha256:1", "k3s", "filer=id2"}, {"sha256:1k3s", "filer=id1"}} {
		if b := kubeconfigVolumeFor(trust.Untrusted(), pins.DefaultPins(), other); a == b {
			t.Errorf("inputs %v share the name %q", other, a)
		}
	}
	if !strings.HasPrefix(a, "shipyard-e2e-kubeconfig-untrusted-") {
		t.Errorf("name %q", a)
	}
}

func TestCheckNamespace(t *testing.T) {
	for name, ok := range map[string]bool{
		"default": true, "tesk-e2e": true, "a": true, "ns1": true, strings.Repeat("a", 63): true,
		"": false, "Tesk": false, "-ns": false, "ns-": false, "ns_1": false, "ns.1": false, strings.Repeat("a", 64): false,
	} {
		if err := CheckNamespace(name); (err == nil) != ok {
			t.Errorf("CheckNamespace(%q) = %v, want ok %v", name, err, ok)
		}
	}
}
