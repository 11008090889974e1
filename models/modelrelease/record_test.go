package modelrelease

import (
	"strings"
	"testing"
)

func digest(c byte) string { return "sha256:" + strings.Repeat(string(c), 64) }

func TestRecordRoundTrips(t *testing.T) {
	r := Record{Version: "1.31.5.2", Upstream: "1.31.5", Fingerprint: digest('a'), Tree: digest('b')}
	got, err := ParseRecord(r.Marshal())
	if err != nil || got != r {
		t.Fatalf("file: %+v, %v", got, err)
	}
	body := ReleaseBody(r, "cloudcoil.models.kubernetes")
	fromBody, found, err := RecordFromBody(body)
	if err != nil || !found || fromBody != r {
		t.Fatalf("body: %+v, %v, %v\n%s", fromBody, found, err, body)
	}
	if !strings.Contains(body, "packaging revision 2") || !strings.HasSuffix(body, " -->\n") {
		t.Errorf("body:\n%s", body)
	}
}

func TestRecordRejectsWhatItCannotTrust(t *testing.T) {
	good := `{"version":"1.31.5.2","upstream":"1.31.5","fingerprint":"` + digest('a') + `","tree":"` + digest('b') + `"}`
	tests := []struct {
		name, data, want string
	}{
		{"unknown field", strings.Replace(good, `"tree"`, `"extra":1,"tree"`, 1), "unknown field"},
		{"version of another upstream", strings.Replace(good, `"upstream":"1.31.5"`, `"upstream":"1.31.6"`, 1), "not a packaging of upstream"},
		{"short digest", strings.Replace(good, digest('a'), "sha256:abc", 1), "fingerprint"},
		{"bare version", strings.Replace(good, `"1.31.5.2"`, `"1.31.5"`, 1), "not X.Y.Z.N"},
		{"trailing data", good + "{}", "trailing data"},
		{"another tool's record", `{"release": "1.31.5-2"}`, "not a Shipyard release record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRecord([]byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), RecordPath) || !strings.Contains(err.Error(), "to migrate, remove") {
				t.Errorf("err = %v, want %q naming %s and how to migrate", err, tt.want, RecordPath)
			}
		})
	}
}

func TestRecordFromBody(t *testing.T) {
	r := Record{Version: "1.31.5.2", Upstream: "1.31.5", Fingerprint: digest('a'), Tree: digest('b')}
	tests := []struct {
		name      string
		body      string
		wantFound bool
		wantErr   string
	}{
		{"no marker (a release from before fingerprints)", "Hand-written notes.\n", false, ""},
		{"marker after notes", "Notes.\n\n" + r.Marker() + "\n", true, ""},
		{"two markers", r.Marker() + "\n" + r.Marker() + "\n", true, "2 cloudcoil-release markers"},
		{"broken marker", `<!-- cloudcoil-release: {"version":"x"} -->`, true, "release body marker"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found, err := RecordFromBody(tt.body)
			if found != tt.wantFound {
				t.Errorf("found = %v", found)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || (found && got != r) {
				t.Errorf("got %+v, %v", got, err)
			}
		})
	}
}
