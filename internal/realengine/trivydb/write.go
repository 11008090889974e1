package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/aquasecurity/trivy-db/pkg/db"
	"github.com/aquasecurity/trivy-db/pkg/metadata"
	"github.com/aquasecurity/trivy-db/pkg/types"
	"github.com/aquasecurity/trivy-db/pkg/vulnsrc/bucket"
	"github.com/aquasecurity/trivy-db/pkg/vulnsrc/vulnerability"
	bolt "go.etcd.io/bbolt"
)

// Write writes the advisories as Trivy's database under cacheDir/db (trivy.db and
// metadata.json), the way trivy-db's Debian source and build store them: each advisory
// in the release's bucket under its source package, the vulnerability's details and
// Debian's severity in the vulnerability bucket, the release's data source. now dates the
// metadata; NextUpdate lies a year later, so no Trivy run takes it for stale.
func Write(cacheDir string, advisories []Advisory, now time.Time) error {
	dir := filepath.Join(cacheDir, "db")
	if err := db.Init(dir); err != nil {
		return fmt.Errorf("opening %s: %w", db.Path(dir), err)
	}
	platform := bucket.NewDebian(Release).Name()
	source := types.DataSource{ID: vulnerability.Debian, Name: "Debian Security Tracker",
		URL: "https://salsa.debian.org/security-tracker-team/security-tracker"}
	dbc := db.Config{}
	err := dbc.BatchUpdate(func(tx *bolt.Tx) error {
		for _, a := range advisories {
			detail := types.Advisory{Severity: severity(a.Severity), FixedVersion: a.Fixed}
			if a.Fixed == "" {
				detail.Status = types.StatusAffected
			}
			if err := dbc.PutAdvisoryDetail(tx, a.ID, a.Source, []string{platform}, &detail); err != nil {
				return err
			}
			vuln := types.Vulnerability{
				Title:          fmt.Sprintf("%s: the real-engine suite's %s advisory", a.Source, a.Severity),
				Description:    "Written by the suite for its scan gates; no such vulnerability is known.",
				Severity:       string(a.Severity),
				VendorSeverity: types.VendorSeverity{vulnerability.Debian: severity(a.Severity)},
			}
			if err := dbc.PutVulnerability(tx, a.ID, vuln); err != nil {
				return err
			}
			if err := dbc.PutVulnerabilityID(tx, a.ID); err != nil {
				return err
			}
			if err := dbc.PutDataSource(tx, platform, source); err != nil {
				return err
			}
			// trivy-db's build moves each advisory from the detail bucket into its
			// platform's bucket, where Trivy reads it.
			if err := dbc.SaveAdvisoryDetails(tx, a.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = dbc.DeleteAdvisoryDetailBucket()
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", db.Path(dir), err)
	}
	meta := metadata.Metadata{Version: db.SchemaVersion, UpdatedAt: now.UTC(), NextUpdate: now.UTC().AddDate(1, 0, 0), DownloadedAt: now.UTC()}
	if err := metadata.NewClient(dir).Update(meta); err != nil {
		return fmt.Errorf("writing %s: %w", metadata.Path(dir), err)
	}
	return nil
}

func severity(s Severity) types.Severity {
	switch s {
	case Critical:
		return types.SeverityCritical
	case High:
		return types.SeverityHigh
	case Low:
		return types.SeverityLow
	}
	return types.SeverityUnknown
}
