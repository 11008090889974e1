package trivy

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// SchemaVersion is the version of Trivy's JSON report this package reads.
const SchemaVersion = 2

// Severities returns Trivy's severity levels, most severe first.
func Severities() []string {
	return []string{"CRITICAL", "HIGH", "MEDIUM", "LOW", "UNKNOWN"}
}

// Report is the part of a Trivy JSON report (trivy image --format json) the policy needs.
type Report struct {
	SchemaVersion int
	ArtifactName  string
	ArtifactType  string
	Results       []Result
}

// Result is the findings for one target: the OS packages of an image, or one lockfile.
type Result struct {
	Target          string
	Class           string
	Type            string
	Vulnerabilities []Vulnerability
}

// Vulnerability is one finding. FixedVersion is empty and Status is not "fixed" when no fix
// is available.
type Vulnerability struct {
	VulnerabilityID  string
	PkgName          string
	PkgPath          string
	PkgIdentifier    PkgIdentifier
	InstalledVersion string
	FixedVersion     string
	Status           string
	Severity         string
	Title            string
}

// PkgIdentifier identifies the package a finding is in.
type PkgIdentifier struct {
	PURL string
}

// ErrSchemaVersion is returned for a report that is not schema 2.
var ErrSchemaVersion = errors.New("unsupported Trivy report schema")

// ParseReport reads a Trivy JSON report. It refuses reports it cannot judge: another schema,
// or a finding without the fields Trivy always fills (VulnerabilityID, PkgName,
// InstalledVersion, Severity) or with an unknown severity, since a scan gate must not pass
// on a report it misread.
func ParseReport(b []byte) (Report, error) {
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return Report{}, fmt.Errorf("reading the Trivy report: %w", err)
	}
	if r.SchemaVersion != SchemaVersion {
		return Report{}, fmt.Errorf("%w: SchemaVersion is %d, want %d: produce it with a current Trivy and --format json",
			ErrSchemaVersion, r.SchemaVersion, SchemaVersion)
	}
	for i, res := range r.Results {
		for j, v := range res.Vulnerabilities {
			where := fmt.Sprintf("Results[%d].Vulnerabilities[%d]", i, j)
			switch {
			case v.VulnerabilityID == "":
				return Report{}, fmt.Errorf("reading the Trivy report: %s has no VulnerabilityID", where)
			case v.PkgName == "" || v.InstalledVersion == "":
				return Report{}, fmt.Errorf("reading the Trivy report: %s (%s) has no PkgName or InstalledVersion", where, v.VulnerabilityID)
			case !slices.Contains(Severities(), v.Severity):
				return Report{}, fmt.Errorf("reading the Trivy report: %s (%s) has severity %q, want one of %v",
					where, v.VulnerabilityID, v.Severity, Severities())
			}
			if v.PkgIdentifier.PURL != "" {
				if _, err := parsePURL(v.PkgIdentifier.PURL); err != nil {
					return Report{}, fmt.Errorf("reading the Trivy report: %s (%s): %w", where, v.VulnerabilityID, err)
				}
			}
		}
	}
	return r, nil
}
