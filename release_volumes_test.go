package main

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"

	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/trust"
)

// The release level's cache volumes are named by a MAC of the credential the call holds,
// read at the boundary, not by anything a commit of Shipyard's source alone can compute:
// Dagger names a module's volumes by the module's name and source, so any commit run on
// the same engine, a fork's pull-request head included, could otherwise mount them by name.
// Two calls at the same registry and organisation with different passwords get different
// names; the same password, the same names; none of them holds the password, and a call
// without it gets the pull-request level's.
func TestReleaseVolumesAreKeyedByTheCredential(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := pins.DefaultPins()
	const a, b = "dckr_pat_AAAA0SECRET", "dckr_pat_BBBB0SECRET"
	names := func(password string) (string, []string) {
		m, _ := newModule(t, nil, engine.AllowSecretPlaintext())
		if password != "" {
			m.RegistryUsername, m.RegistryPassword = "bot", m.engine().SetSecret("registry-password", password)
		}
		l, err := openCall(t, m, "push-by-digest").level(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return l.String(), []string{l.CacheVolumeName(trust.UVCacheVolume, p), l.BuildCacheVolumeName("shipyard-go-build", pins.DefaultGoImage)}
	}
	levelA, withA := names(a)
	_, again := names(a)
	_, withB := names(b)
	levelNone, without := names("")
	if levelA != "release" || levelNone != "untrusted" {
		t.Fatalf("levels %s with the password, %s without; want release and untrusted", levelA, levelNone)
	}
	for i := range withA {
		if withA[i] != again[i] {
			t.Errorf("the same password names %q, then %q", withA[i], again[i])
		}
		if withA[i] == withB[i] {
			t.Errorf("another password at the same registry and organisation names the same volume %q", withA[i])
		}
		if withA[i] == without[i] || withB[i] == without[i] {
			t.Errorf("a call without the password names the release volume %q", without[i])
		}
		for _, name := range []string{withA[i], withB[i]} {
			for _, secret := range []string{a, b, "AAAA0SECRET", "BBBB0SECRET", hex.EncodeToString([]byte(a)), hex.EncodeToString([]byte(b))} {
				if strings.Contains(strings.ToLower(name), strings.ToLower(secret)) {
					t.Errorf("the volume name %q holds the password", name)
				}
			}
		}
	}
}
