package modelrelease

import (
	"bytes"
	"dagger/shipyard/models/modelenv"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// RecordPath is where a release branch commit records its release, at the repository
// root. models.Fingerprint leaves it out, since it holds the fingerprint.
const RecordPath = ".cloudcoil-release.json"

// Record is what a release run records about the release it prepared: in RecordPath on
// the release branch and in a marker in the release's body (see the package doc).
type Record struct {
	// Version is the package version, <upstream>.<packaging>.
	Version string `json:"version"`
	// Upstream is the upstream version X.Y.Z the models were generated from.
	Upstream string `json:"upstream"`
	// Fingerprint is models.Fingerprint of what ships: the next run compares its own with
	// it to tell whether anything changed.
	Fingerprint string `json:"fingerprint"`
	// Tree is models.Fingerprint of every file of the release commit but this record, so
	// a run can tell without reading the branch whether its commit would change anything.
	Tree string `json:"tree"`
}

var digestForm = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// Validate checks that every field is well formed.
func (r Record) Validate() error {
	up, _, ok := modelenv.ParseVersion(r.Version)
	switch {
	case !ok:
		return fmt.Errorf("version %q is not X.Y.Z.N", r.Version)
	case up != r.Upstream:
		return fmt.Errorf("version %s is not a packaging of upstream %q", r.Version, r.Upstream)
	case !digestForm.MatchString(r.Fingerprint):
		return fmt.Errorf("fingerprint %q is not sha256:<64 hex>", r.Fingerprint)
	case !digestForm.MatchString(r.Tree):
		return fmt.Errorf("tree %q is not sha256:<64 hex>", r.Tree)
	}
	return nil
}

// Marshal renders the record file: indented JSON with a trailing newline.
func (r Record) Marshal() []byte {
	b, _ := json.MarshalIndent(r, "", "  ") // four strings always marshal
	return append(b, '\n')
}

// RecordMigration is how to move past a record Shipyard cannot read (one written by hand or
// by other tooling): without it, the next run treats the last release as one from before
// fingerprint tracking and releases at most one new packaging revision, then records it.
const RecordMigration = "to migrate, remove " + RecordPath + " (and any cloudcoil-release marker in the release body) and run the release again: it records a fresh one, releasing at most one new packaging revision"

// ParseRecord reads a record file, refusing unknown fields and malformed values: a record
// that cannot be trusted must not decide that nothing changed. The error names the file
// and says how to migrate.
func ParseRecord(data []byte) (Record, error) {
	var r Record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Record{}, fmt.Errorf("%s: not a Shipyard release record (%w); %s", RecordPath, err, RecordMigration)
	}
	if dec.More() {
		return Record{}, fmt.Errorf("%s: trailing data after the record; %s", RecordPath, RecordMigration)
	}
	if err := r.Validate(); err != nil {
		return Record{}, fmt.Errorf("%s: %w; %s", RecordPath, err, RecordMigration)
	}
	return r, nil
}

// markerPrefix starts the hidden marker in release bodies; Markdown renders HTML comments
// as nothing, so readers of the release page do not see it.
const markerPrefix = "<!-- cloudcoil-release: "

var markerLine = regexp.MustCompile(`(?m)^<!-- cloudcoil-release: (\{[^\n]*\}) -->\s*$`)

// Marker is the record as the hidden line a release body ends with.
func (r Record) Marker() string {
	b, _ := json.Marshal(r)
	return markerPrefix + string(b) + " -->"
}

// RecordFromBody finds the marker in a release body. found is false when there is none
// (releases made before fingerprints were recorded, or edited by hand); a marker that is
// present but malformed is an error.
func RecordFromBody(body string) (r Record, found bool, err error) {
	ms := markerLine.FindAllStringSubmatch(body, -1)
	switch len(ms) {
	case 0:
		return Record{}, false, nil
	case 1:
	default:
		return Record{}, true, fmt.Errorf("release body has %d cloudcoil-release markers; keep only the last run's", len(ms))
	}
	r, err = ParseRecord([]byte(ms[0][1]))
	if err != nil {
		return Record{}, true, fmt.Errorf("release body marker: %w", err)
	}
	return r, true, nil
}

// ReleaseBody is the body of a model release: what it packages, and the marker.
func ReleaseBody(r Record, name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: the models generated from upstream %s (packaging revision %s).\n\n",
		name, r.Version, r.Upstream, strings.TrimPrefix(r.Version, r.Upstream+"."))
	fmt.Fprintf(&b, "Fingerprint of the package contents: `%s`\n\n", r.Fingerprint)
	b.WriteString(r.Marker())
	b.WriteString("\n")
	return b.String()
}
