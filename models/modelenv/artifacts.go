package modelenv

import (
	"context"
	"encoding/base64"
	"fmt"
	"path"
	"sort"
	"strings"

	"dagger.io/dagger"

	"dagger/shipyard/models"
)

// MaxArtifactBytes bounds one wheel or sdist read back from the graph. The largest model
// package (Kubernetes) builds archives of a few MiB; the archive readers bound what they
// unpack separately (models.DefaultArchiveLimits).
const MaxArtifactBytes = 256 << 20

// Where the build graph writes: the wheel and sdist in DistDir, and each archive
// base64-encoded as EncodedDir/<file name>.b64, which is what Go reads back.
const (
	DistDir    = "/dist"
	EncodedDir = "/encoded"
)

// Built is a wheel and an sdist, read back from the graph and parsed in Go.
type Built struct {
	WheelName, SdistName string
	Wheel, Sdist         models.Artifact
	// Dist is the folder uv build wrote: the very files that were checked, for upload.
	Dist *dagger.Directory
}

// build runs `uv build` in ctr's /repo and reads both artifacts back.
func (e Env) Build(ctx context.Context, ctr *dagger.Container) (Built, error) {
	return readBuilt(ctx, ctr.WithExec([]string{"uv", "build", "--out-dir", DistDir}), DistDir, "uv build")
}

// readBuilt reads the one wheel and one sdist that what (a command, for the error) left in
// distDir of built.
func readBuilt(ctx context.Context, built *dagger.Container, distDir, what string) (Built, error) {
	entries, err := built.Directory(distDir).Entries(ctx)
	if err != nil {
		return Built{}, fmt.Errorf("%s wrote no %s: %w", what, distDir, err)
	}
	var wheels, sdists []string
	for _, name := range entries {
		switch {
		case strings.HasSuffix(name, ".whl"):
			wheels = append(wheels, name)
		case strings.HasSuffix(name, ".tar.gz"):
			sdists = append(sdists, name)
		}
	}
	if len(wheels) != 1 || len(sdists) != 1 {
		sort.Strings(entries)
		return Built{}, fmt.Errorf("%s wrote %q to %s; want one wheel and one sdist", what, entries, distDir)
	}
	out := Built{WheelName: wheels[0], SdistName: sdists[0], Dist: built.Directory(distDir)}
	wheel, err := readArtifact(ctx, built, distDir, wheels[0])
	if err != nil {
		return Built{}, err
	}
	sdist, err := readArtifact(ctx, built, distDir, sdists[0])
	if err != nil {
		return Built{}, err
	}
	if out.Wheel, out.Sdist, err = models.ReadDistributions(wheels[0], wheel, sdists[0], sdist); err != nil {
		return Built{}, err
	}
	return out, nil
}

// readArtifact reads a built archive into memory. The API returns file contents as text,
// which would alter binary bytes, so the graph base64-encodes the archive first and Go
// decodes it; the encoded size is checked before anything is read.
func readArtifact(ctx context.Context, built *dagger.Container, distDir, name string) ([]byte, error) {
	encoded := EncodedDir + "/" + name + ".b64"
	// A redirect opens its file without making its folder: the empty file makes it.
	f := built.
		WithNewFile(encoded, "").
		WithExec([]string{"base64", "-w", "0", path.Join(distDir, name)}, dagger.ContainerWithExecOpts{RedirectStdout: encoded}).
		File(encoded)
	size, err := f.Size(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if limit := base64.StdEncoding.EncodedLen(MaxArtifactBytes); size > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes; raise MaxArtifactBytes only if a model package really grew that much", name, MaxArtifactBytes)
	}
	text, err := f.Contents(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text))
	if err != nil {
		return nil, fmt.Errorf("reading %s: its base64 encoding does not decode: %w", name, err)
	}
	return data, nil
}

// ArtifactRules are the check-artifacts rules for a generated repository's layout: the
// import root is src/ only when the package lives there (the template keeps it at the
// root).
func ArtifactRules(pkgDir string) models.ArtifactRules {
	r := models.DefaultArtifactRules()
	if strings.HasPrefix(pkgDir, "src/") {
		r.ImportRoot = "src"
	}
	return r
}

// ArtifactReport is the outcome of check-artifacts.
type ArtifactReport struct {
	Project    Project
	PackageDir string
	WheelName  string
	SdistName  string
	Problems   []models.Problem
	// Dist holds the checked wheel and sdist (set by publish-check).
	Dist *dagger.Directory
}

// Err is nil when no problem was found, else an error listing every problem.
func (r ArtifactReport) Err() error {
	if len(r.Problems) == 0 {
		return nil
	}
	lines := make([]string, len(r.Problems))
	for i, p := range r.Problems {
		lines[i] = "  " + p.String()
	}
	return fmt.Errorf("%d problem(s) in %s %s:\n%s", len(r.Problems), r.Project.Name, r.Project.Version, strings.Join(lines, "\n"))
}

// Text renders the report.
func (r ArtifactReport) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "project:  %s %s\npackage:  %s\nwheel:    %s\nsdist:    %s\n", r.Project.Name, r.Project.Version, r.PackageDir, r.WheelName, r.SdistName)
	if len(r.Problems) == 0 {
		b.WriteString("artifacts match the checkout: file sets, bytes, names and versions; resource lookup and model modules complete\n")
		return b.String()
	}
	fmt.Fprintf(&b, "%d problem(s):\n", len(r.Problems))
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "  %s\n", p)
	}
	return b.String()
}

// CheckBuilt applies the artifact rules to a checkout held in memory and its artifacts.
func CheckBuilt(tree Tree, pkgDir string, built Built) []models.Problem {
	return ArtifactRules(pkgDir).Check(tree.FS(), pkgDir, built.Wheel, built.Sdist)
}

// CheckArtifacts builds a generated repository's wheel and sdist as it is (no generation)
// and checks them against the checkout: package files identical in set and bytes, names
// and versions equal to pyproject.toml's, the resource lookup not empty, no model module
// missing or empty. The report lists every problem; Err says whether any was found.
func (e Env) CheckArtifacts(ctx context.Context, repo *dagger.Directory) (ArtifactReport, error) {
	tree, err := ReadTree(ctx, repo, DefaultTreeLimits())
	if err != nil {
		return ArtifactReport{}, fmt.Errorf("reading the checkout: %w", err)
	}
	project, err := ReadProject(tree[PyprojectPath])
	if err != nil {
		return ArtifactReport{}, err
	}
	pkgDir, err := FindPackageDir(tree)
	if err != nil {
		return ArtifactReport{}, err
	}
	ctr, err := e.PythonContainer(repo.Filter(dagger.DirectoryFilterOpts{Exclude: NotRepository()}))
	if err != nil {
		return ArtifactReport{}, err
	}
	built, err := e.Build(ctx, ctr)
	if err != nil {
		return ArtifactReport{}, err
	}
	return ArtifactReport{
		Project: project, PackageDir: pkgDir, WheelName: built.WheelName, SdistName: built.SdistName,
		Problems: CheckBuilt(tree, pkgDir, built),
	}, nil
}
