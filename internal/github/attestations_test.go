package github

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

var (
	subjectA = strings.Repeat("a", 64)
	subjectB = strings.Repeat("b", 64)
)

// bundleOf is a Sigstore bundle's shape around an in-toto statement of the subjects (sha256
// hex), with sig telling one signing from another.
func bundleOf(sig string, subjects ...string) []byte {
	var subj []any
	for _, s := range subjects {
		subj = append(subj, map[string]any{"name": "ghcr.io/o/image", "digest": map[string]string{"sha256": s}})
	}
	st, _ := json.Marshal(map[string]any{"_type": "https://in-toto.io/Statement/v1", "subject": subj, "predicateType": "https://slsa.dev/provenance/v1"})
	b, _ := json.Marshal(map[string]any{
		"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
		"dsseEnvelope": map[string]any{
			"payload": base64.StdEncoding.EncodeToString(st), "payloadType": "application/vnd.in-toto+json",
			"signatures": []any{map[string]string{"sig": sig}},
		},
	})
	return b
}

func TestAttestationSubjects(t *testing.T) {
	tests := []struct {
		name    string
		bundle  []byte
		want    []string
		wantErr bool
	}{
		{"index and platform", bundleOf("s", subjectA, strings.ToUpper(subjectB)), []string{"sha256:" + subjectA, "sha256:" + subjectB}, false},
		{"repeated subject once", bundleOf("s", subjectA, subjectA), []string{"sha256:" + subjectA}, false},
		{"short digests are skipped", bundleOf("s", "abc", subjectA), []string{"sha256:" + subjectA}, false},
		{"no sha256 subject", bundleOf("s", "abc"), nil, true},
		{"not JSON", []byte("{"), nil, true},
		{"a message signature, no envelope", []byte(`{"messageSignature":{}}`), nil, true},
		{"an envelope of something else", []byte(`{"dsseEnvelope":{"payload":"e30=","payloadType":"text/plain"}}`), nil, true},
		{"a payload that is not base64", []byte(`{"dsseEnvelope":{"payload":"!!","payloadType":"application/vnd.in-toto+json"}}`), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AttestationSubjects(tt.bundle)
			if (err != nil) != tt.wantErr || (err != nil && !errors.Is(err, ErrNotAttestation)) {
				t.Fatalf("err = %v, want error %v wrapping ErrNotAttestation", err, tt.wantErr)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// The re-run rule: an upload is not repeated when the store lists the same bundle for the
// subject, however the store wrote it back.
func TestAttestationPresent(t *testing.T) {
	mine := bundleOf("first-signing", subjectA, subjectB)
	var reformatted map[string]any
	if err := json.Unmarshal(mine, &reformatted); err != nil {
		t.Fatal(err)
	}
	pretty, _ := json.MarshalIndent(reformatted, "", "  ")
	tests := []struct {
		name   string
		listed []Attestation
		want   bool
	}{
		{"nothing stored", nil, false},
		{"the same bundle", []Attestation{{Bundle: mine}}, true},
		{"the same bundle written back with other spacing and key order", []Attestation{{Bundle: pretty}}, true},
		{"another signing of the same statement", []Attestation{{Bundle: bundleOf("second-signing", subjectA, subjectB)}}, false},
		{"another statement", []Attestation{{Bundle: bundleOf("first-signing", subjectA)}}, false},
		{"among others", []Attestation{{Bundle: bundleOf("x", subjectA)}, {Bundle: []byte("not json")}, {Bundle: mine}}, true},
		{"an entry without its bundle", []Attestation{{}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AttestationPresent(mine, tt.listed)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("present = %v, want %v", got, tt.want)
			}
		})
	}
	if _, err := AttestationPresent([]byte("{"), nil); err == nil {
		t.Error("a bundle that is not JSON has no digest")
	}
}

func TestBundleDigest(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{`{"a":1,"b":[1,2]}`, `{ "b": [1, 2], "a": 1 }`, true},
		// Numbers keep their text: a large id does not round through float64.
		{`{"n":12345678901234567890}`, `{"n":12345678901234567891}`, false},
		{`{"a":"x"}`, `{"a":"y"}`, false},
	}
	for _, tt := range tests {
		da, err := BundleDigest([]byte(tt.a))
		if err != nil {
			t.Fatal(err)
		}
		db, err := BundleDigest([]byte(tt.b))
		if err != nil {
			t.Fatal(err)
		}
		if (da == db) != tt.same {
			t.Errorf("%s and %s: same = %v, want %v", tt.a, tt.b, da == db, tt.same)
		}
	}
	for _, bad := range []string{"", "{", `{} {}`} {
		if _, err := BundleDigest([]byte(bad)); err == nil {
			t.Errorf("%q has a digest", bad)
		}
	}
}

// FuzzAttestationSubjects: a bundle read from anywhere never panics the reader, and what
// it returns is well-formed.
func FuzzAttestationSubjects(f *testing.F) {
	f.Add(bundleOf("s", subjectA))
	f.Add([]byte(`{"dsseEnvelope":{"payload":"e30=","payloadType":"application/vnd.in-toto+json"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := AttestationSubjects(b)
		if err != nil {
			return
		}
		if len(got) == 0 {
			t.Fatal("no error and no subject")
		}
		for _, s := range got {
			if !strings.HasPrefix(s, "sha256:") || len(s) != 71 || strings.ToLower(s) != s {
				t.Fatalf("subject %q", s)
			}
		}
		_, _ = BundleDigest(b)
	})
}
