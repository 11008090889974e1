package release

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"dagger/shipyard/internal/fanout"
	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/pyproject"
	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/releasegate"
)

// versionScript prints the installed version of the distribution named by its argument, as
// the package's own metadata says; the name travels as an argument, never inside the code.
const versionScript = "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))"

// VersionMismatchError is an image whose installed package reports another version than
// the tag's.
type VersionMismatchError struct {
	Image, Package, Want, Got string
}

func (e *VersionMismatchError) Error() string {
	return fmt.Sprintf("image %s: package %s reports version %q, the tag is for %q", e.Image, e.Package, e.Got, e.Want)
}

// CheckVersions runs Python inside each built image (each platform's, of a multi-platform
// image) and compares the installed package's
// version with the plan's, exactly (PEP 440's normal form, as the tag spells it without
// v). Any difference, or an image where the package cannot be found, publishes nothing.
func CheckVersions(ctx context.Context, cfg Config, plan releasegate.Plan, p *ci.Pipeline, images []ci.Image) error {
	pkg, err := packageOf(ctx, cfg, p)
	if err != nil {
		return err
	}
	// Every platform's image is checked: each installs the package in its own build.
	builds := platformBuilds(images)
	err = fanout.Each(ctx, 0, len(builds), func(ctx context.Context, i int) error {
		b := builds[i]
		out, err := b.WithExec([]string{"python", "-c", versionScript, pkg}).Stdout(ctx)
		if err != nil {
			return fmt.Errorf("image %s: reading the version of %s: %w", b.name, pkg, err)
		}
		if got := strings.TrimSpace(out); got != plan.Version {
			return &VersionMismatchError{Image: b.name, Package: pkg, Want: plan.Version, Got: got}
		}
		return nil
	})
	if err != nil {
		return flow.Advise(err,
			"nothing was published: make the build install the tag's version (SETUPTOOLS_SCM_PRETEND_VERSION must reach it); "+
				"a fix in the Dockerfiles needs a higher version, as the tag cannot move")
	}
	flow.Logf(ctx, "%s reports %s in %s", pkg, plan.Version, imageNames(images))
	return nil
}

func packageOf(ctx context.Context, cfg Config, p *ci.Pipeline) (string, error) {
	if cfg.Package != "" {
		return cfg.Package, nil
	}
	content, err := p.Source.File("pyproject.toml").Contents(ctx)
	if err != nil {
		return "", fmt.Errorf("reading pyproject.toml for the package name: %w", err)
	}
	return PackageName(content)
}

// distName is a valid distribution name (PyPA core metadata).
var distName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// PackageName reads [project] name from pyproject.toml.
func PackageName(data string) (string, error) {
	doc, err := pyproject.Parse("pyproject.toml", []byte(data))
	if err != nil {
		return "", err
	}
	name, found, err := doc.String("project", "name")
	if err != nil {
		return "", err
	}
	if !found {
		return "", errors.New("pyproject.toml has no [project] name; pass the package name")
	}
	if !distName.MatchString(name) {
		return "", fmt.Errorf("pyproject.toml: [project] name %q is not a distribution name", name)
	}
	return name, nil
}
