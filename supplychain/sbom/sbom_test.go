package sbom

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"dagger/shipyard/supplychain/provenance"
)

const trivyBOM = `{
  "$schema": "http://cyclonedx.org/schema/bom-1.6.schema.json",
  "bomFormat": "CycloneDX",
  "specVersion": "1.6",
  "serialNumber": "urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79",
  "version": 1,
  "metadata": {"component": {"type": "container", "name": "r/o/filer@sha256:ab"}},
  "components": [{"type": "library", "name": "pip", "version": "24.0", "purl": "pkg:pypi/pip@24.0"}]
}
`

func TestCheck(t *testing.T) {
	tests := []struct {
		name, doc, wantErr string
	}{
		{name: "Trivy's CycloneDX", doc: trivyBOM},
		{name: "SPDX JSON", doc: `{"spdxVersion":"SPDX-2.3","SPDXID":"SPDXRef-DOCUMENT"}`, wantErr: "bomFormat"},
		{name: "Trivy's vulnerability report", doc: `{"SchemaVersion":2,"Results":[]}`, wantErr: "bomFormat"},
		{name: "another bomFormat", doc: `{"bomFormat":"cyclonedx","specVersion":"1.6"}`, wantErr: "bomFormat"},
		{name: "no specVersion", doc: `{"bomFormat":"CycloneDX"}`, wantErr: "specVersion"},
		{name: "empty specVersion", doc: `{"bomFormat":"CycloneDX","specVersion":" "}`, wantErr: "specVersion"},
		{name: "an array", doc: `[{"bomFormat":"CycloneDX","specVersion":"1.6"}]`, wantErr: "not a JSON object"},
		{name: "two documents", doc: trivyBOM + trivyBOM, wantErr: "more than one"},
		{name: "empty", doc: "", wantErr: "EOF"},
		{name: "XML", doc: `<bom xmlns="http://cyclonedx.org/schema/bom/1.6"/>`, wantErr: "invalid character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Check([]byte(tt.doc))
			if tt.wantErr != "" {
				if !errors.Is(err, ErrNotCycloneDX) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want ErrNotCycloneDX with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.ContainsAny(string(got), "\n") || !json.Valid(got) {
				t.Errorf("not compact JSON: %s", got)
			}
		})
	}
}

// The statement is what cosign's CycloneDX policy reads: in-toto v1, the image digest as
// subject, the BOM object as the predicate, unchanged.
func TestStatement(t *testing.T) {
	digest := "sha256:" + strings.Repeat("a", 64)
	st, err := Statement("registry.example/o/filer", digest, []byte(trivyBOM))
	if err != nil {
		t.Fatal(err)
	}
	b, err := provenance.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Type    string `json:"_type"`
		Subject []struct {
			Name   string            `json:"name"`
			Digest map[string]string `json:"digest"`
		} `json:"subject"`
		PredicateType string         `json:"predicateType"`
		Predicate     map[string]any `json:"predicate"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Type != "https://in-toto.io/Statement/v1" || got.PredicateType != "https://cyclonedx.org/bom" {
		t.Errorf("type %q, predicate type %q", got.Type, got.PredicateType)
	}
	if len(got.Subject) != 1 || got.Subject[0].Name != "registry.example/o/filer" || got.Subject[0].Digest["sha256"] != strings.Repeat("a", 64) {
		t.Errorf("subject %+v", got.Subject)
	}
	var want map[string]any
	if err := json.Unmarshal([]byte(trivyBOM), &want); err != nil {
		t.Fatal(err)
	}
	if jsonString(t, got.Predicate) != jsonString(t, want) {
		t.Errorf("predicate %v, want the BOM %v", got.Predicate, want)
	}

	for _, bad := range []struct{ digest, doc, want string }{
		{digest: "sha512:" + strings.Repeat("a", 128), doc: trivyBOM, want: "not sha256"},
		{digest: "latest", doc: trivyBOM, want: "not sha256"},
		{digest: digest, doc: `{"SchemaVersion":2}`, want: "bomFormat"},
	} {
		if _, err := Statement("r/o/filer", bad.digest, []byte(bad.doc)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Statement(%q, %.30q) = %v, want %q", bad.digest, bad.doc, err, bad.want)
		}
	}
}

func jsonString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzCheck: whatever the file, Check returns an error or compact JSON of a CycloneDX
// object, and never panics.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{trivyBOM, `{"bomFormat":"CycloneDX","specVersion":"1.5"}`, `[]`, `{"bomFormat":1}`, ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		got, err := Check(doc)
		if err != nil {
			if !errors.Is(err, ErrNotCycloneDX) {
				t.Fatalf("error %v does not wrap ErrNotCycloneDX", err)
			}
			return
		}
		var head struct {
			BOMFormat string `json:"bomFormat"`
		}
		if err := json.Unmarshal(got, &head); err != nil || head.BOMFormat != "CycloneDX" {
			t.Fatalf("accepted %q as %q (%v)", doc, got, err)
		}
	})
}
