package modelrelease

import (
	"context"
	"fmt"
	"strings"

	"dagger.io/dagger"

	"dagger/shipyard/internal/trust"
	"dagger/shipyard/models"
)

// PublishCheck is what the PyPI publisher job runs on the checkout of a release tag
// before uploading: the tag equals the committed package version (and the release
// record's, when the commit carries one, whose fingerprint must still match the files);
// the locked dependencies install (`uv sync --locked`, which also fails when uv.lock no
// longer matches pyproject.toml, where --frozen would install a stale lock); the wheel
// and sdist built from the checkout pass the artifact and Cloudcoil dependency checks.
// It never allocates: re-running a failed upload checks and publishes the same version.
func (e Env) PublishCheck(ctx context.Context, source *dagger.Directory, tag string) (ArtifactReport, error) {
	e.Trust = trust.Release // its dist/ goes to PyPI
	version := strings.TrimPrefix(tag, "v")
	if _, _, ok := parseVersion(version); !ok {
		return ArtifactReport{}, fmt.Errorf("publish-check: --tag %q: want a model release tag X.Y.Z.N", tag)
	}
	tree, err := ReadTree(ctx, source, DefaultTreeLimits())
	if err != nil {
		return ArtifactReport{}, fmt.Errorf("publish-check: reading the checkout: %w", err)
	}
	project, err := ReadProject(tree[pyprojectPath])
	if err != nil {
		return ArtifactReport{}, fmt.Errorf("publish-check: %w", err)
	}
	if project.Version != version {
		_, hasRecord := tree[RecordPath]
		return ArtifactReport{}, fmt.Errorf("publish-check: %w", versionMismatch(tag, version, project.Version, hasRecord))
	}
	pkgDir, err := FindPackageDir(tree)
	if err != nil {
		return ArtifactReport{}, fmt.Errorf("publish-check: %w", err)
	}
	var problems []models.Problem
	if data, ok := tree[RecordPath]; ok {
		problems = append(problems, checkRecord(data, tree, pkgDir, version)...)
	}
	ctr, err := e.python(source.Filter(dagger.DirectoryFilterOpts{Exclude: notRepository}))
	if err != nil {
		return ArtifactReport{}, fmt.Errorf("publish-check: %w", err)
	}
	ctr = ctr.WithExec([]string{"uv", "sync", "--locked"})
	built, err := e.build(ctx, ctr)
	if err != nil {
		return ArtifactReport{}, fmt.Errorf("publish-check: %w", err)
	}
	problems = append(problems, checkBuilt(tree, pkgDir, built)...)
	problems = append(problems, CheckCloudcoilDependency(tree[pyprojectPath], tree["uv.lock"])...)
	report := ArtifactReport{Project: project, PackageDir: pkgDir, WheelName: built.WheelName, SdistName: built.SdistName, Problems: problems, Dist: built.Dist}
	return report, report.Err()
}

// checkRecord compares a release commit's record with the commit: same version, and a
// fingerprint that still describes the files (a hand edit after the release run would
// publish something no run checked).
func checkRecord(data []byte, tree Tree, pkgDir, version string) []models.Problem {
	rec, err := ParseRecord(data)
	if err != nil {
		return []models.Problem{{Path: RecordPath, Message: err.Error()}}
	}
	var ps []models.Problem
	if rec.Version != version {
		ps = append(ps, models.Problem{Path: RecordPath, Message: fmt.Sprintf("records version %s, not the tag's %s", rec.Version, version)})
	}
	d, err := tree.Fingerprints(pkgDir)
	switch {
	case err != nil:
		ps = append(ps, models.Problem{Path: RecordPath, Message: fmt.Sprintf("cannot fingerprint the checkout: %v", err)})
	case d.Fingerprint != rec.Fingerprint:
		ps = append(ps, models.Problem{Path: RecordPath, Message: "the package files differ from what the release run fingerprinted; release them through a release run"})
	}
	return ps
}

// versionMismatch explains a tag whose version is not the committed one. A tag made before
// Shipyard, by the template's update_releases.yml, is the usual case: that workflow
// commits <upstream>.0 on every release branch commit and set the tag's version only
// while building, so the commit is not the package its tag names, and publishing it
// would upload files no check saw.
func versionMismatch(tag, version, committed string, hasRecord bool) error {
	upTag, n, okTag := parseVersion(version)
	upCommitted, m, okCommitted := parseVersion(committed)
	if !hasRecord && okTag && okCommitted && upTag == upCommitted && m == 0 && n > 0 {
		return fmt.Errorf("tag %s was made before Shipyard: its commit has no %s and carries %s, as the template's update_releases.yml committed <upstream>.0 and set the tag's version only while building; Shipyard publishes only a commit whose version is the tag's, so publish this tag with the workflow that made it, or release upstream %s again with model-release, which commits the version it tags",
			tag, RecordPath, committed, upTag)
	}
	return fmt.Errorf("tag %s does not match %s's version %s; publish the release whose tag is the committed version", tag, pyprojectPath, committed)
}
