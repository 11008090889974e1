package modelrelease

import (
	"context"
	"fmt"
	"strings"

	"dagger.io/dagger"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/models"
	"dagger/shipyard/models/modelenv"
)

// PublishCheck is what the PyPI publisher job runs on the checkout of a release tag, as
// the flow fn (the function it is a call of, publish-check), before uploading: the tag equals the committed package version (and the release
// record's, when the commit carries one, whose fingerprint must still match the files);
// the locked dependencies install (`uv sync --locked`, which also fails when uv.lock no
// longer matches pyproject.toml, where --frozen would install a stale lock); the wheel
// and sdist built from the checkout pass the artifact and Cloudcoil dependency checks.
// It never allocates: re-running a failed upload checks and publishes the same version.
// The checks are the declared steps of publishCheckSteps.
func PublishCheck(ctx context.Context, e modelenv.Env, fn string, source *dagger.Directory, tag string) (modelenv.ArtifactReport, error) {
	s := &publishCheckState{env: e, source: source, tag: tag}
	_, err := flow.Run(ctx, flow.Runner{Flow: fn}, publishCheckSteps(), s)
	return s.report, err
}

// publishCheckState is what publish-check's steps share.
type publishCheckState struct {
	env      modelenv.Env
	source   *dagger.Directory
	tag      string
	version  string
	tree     modelenv.Tree
	pkgDir   string
	problems []models.Problem
	report   modelenv.ArtifactReport
}

// publishCheckSteps are publish-check, in order: nothing is written, so a failed upload
// is checked again by running them again.
func publishCheckSteps() []flow.Step[publishCheckState] {
	return []flow.Step[publishCheckState]{
		{Name: "check tag", Run: func(ctx context.Context, s *publishCheckState) error { return s.checkTag(ctx) },
			Next: "pass --tag the model release tag to publish, X.Y.Z.N"},
		{Name: "read checkout", Run: func(ctx context.Context, s *publishCheckState) error { return s.readCheckout(ctx) },
			Next: "publish only the commit a release run made for this tag, checked out as it is; nothing was uploaded"},
		{Name: "build", Run: func(ctx context.Context, s *publishCheckState) error { return s.build(ctx) },
			Next: "fix uv.lock or the build on the release branch through a release run; nothing was uploaded"},
	}
}

func (s *publishCheckState) checkTag(context.Context) error {
	s.version = strings.TrimPrefix(s.tag, "v")
	if _, _, ok := modelenv.ParseVersion(s.version); !ok {
		return fmt.Errorf("--tag %q: want a model release tag X.Y.Z.N", s.tag)
	}
	return nil
}

func (s *publishCheckState) readCheckout(ctx context.Context) error {
	tree, err := modelenv.ReadTree(ctx, s.source, modelenv.DefaultTreeLimits())
	if err != nil {
		return fmt.Errorf("reading the checkout: %w", err)
	}
	project, err := modelenv.ReadProject(tree[modelenv.PyprojectPath])
	if err != nil {
		return err
	}
	if project.Version != s.version {
		_, hasRecord := tree[RecordPath]
		return versionMismatch(s.tag, s.version, project.Version, hasRecord)
	}
	s.tree, s.report.Project = tree, project
	if s.pkgDir, err = modelenv.FindPackageDir(tree); err != nil {
		return err
	}
	// A release commit's record must still describe it; its problems are reported with
	// the artifacts'.
	if data, ok := tree[RecordPath]; ok {
		s.problems = append(s.problems, checkRecord(data, tree, s.pkgDir, s.version)...)
	}
	return nil
}

// build installs the locked dependencies, builds the wheel and sdist, and checks them
// against the checkout and the Cloudcoil dependency; every problem is reported.
func (s *publishCheckState) build(ctx context.Context) error {
	ctr, err := s.env.PythonContainer(s.source.Filter(dagger.DirectoryFilterOpts{Exclude: modelenv.NotRepository()}))
	if err != nil {
		return err
	}
	built, err := s.env.Build(ctx, ctr.WithExec([]string{"uv", "sync", "--locked"}))
	if err != nil {
		return err
	}
	s.problems = append(s.problems, modelenv.CheckBuilt(s.tree, s.pkgDir, built)...)
	s.problems = append(s.problems, CheckCloudcoilDependency(s.tree[modelenv.PyprojectPath], s.tree["uv.lock"])...)
	s.report.PackageDir, s.report.WheelName, s.report.SdistName = s.pkgDir, built.WheelName, built.SdistName
	s.report.Problems, s.report.Dist = s.problems, built.Dist
	return s.report.Err()
}

// checkRecord compares a release commit's record with the commit: same version, and a
// fingerprint that still describes the files (a hand edit after the release run would
// publish something no run checked).
func checkRecord(data []byte, tree modelenv.Tree, pkgDir, version string) []models.Problem {
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
	upTag, n, okTag := modelenv.ParseVersion(version)
	upCommitted, m, okCommitted := modelenv.ParseVersion(committed)
	if !hasRecord && okTag && okCommitted && upTag == upCommitted && m == 0 && n > 0 {
		return fmt.Errorf("tag %s was made before Shipyard: its commit has no %s and carries %s, as the template's update_releases.yml committed <upstream>.0 and set the tag's version only while building; Shipyard publishes only a commit whose version is the tag's, so publish this tag with the workflow that made it, or release upstream %s again with model-release, which commits the version it tags",
			tag, RecordPath, committed, upTag)
	}
	return fmt.Errorf("tag %s does not match %s's version %s; publish the release whose tag is the committed version", tag, modelenv.PyprojectPath, committed)
}
