package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "dagger.io/dagger"

	"dagger/shipyard/internal/dagger"
	"dagger/shipyard/pipelines/ci"
)

// tesk-core's CI functions: each job of its CI workflow, and ci, which runs them all.

// PrTitle checks a pull request title: Conventional Commits (type(scope)!: subject, with a
// type from feat, fix, docs, style, refactor, perf, test, build, ci, chore, revert) and at
// most 50 characters, since squash merges use it as the commit message. Without a title
// (a push, or `dagger check` outside a pull request) there is nothing to check.
// +check
// +cacheReason="pure over its argument"
func (m *Shipyard) PrTitle(
	// The pull request title.
	// +optional
	title string,
) (string, error) {
	if title == "" {
		return "PR title: none given (--title), nothing to check", nil
	}
	if err := ci.CheckPRTitle(title); err != nil {
		return "", err
	}
	return fmt.Sprintf("PR title ok: %q", title), nil
}

// Lint runs the hooks of .pre-commit-config.yaml on every file (docs/ included), `uv lock
// --check` and cffconvert's validation of CITATION.cff, in containers. Returns their output.
// On a Cloudcoil model repository (Shipyard installed there as a toolchain) it skips.
// +check
// +cacheReason="source and digest-pinned images only"
func (m *Shipyard) Lint(ctx context.Context) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		if skip, err := m.teskCheckSkipped(ctx); skip != "" || err != nil {
			return skip, err
		}
		p, err := m.pipeline(ctx, nil)
		if err != nil {
			return "", err
		}
		return p.Lint(ctx)
	})
}

// Test runs the tests under coverage on each Python version (default: those pyproject.toml
// supports), in parallel, enforcing the project's coverage threshold for the whole suite.
// Returns the reports whatever the outcome: <version>/coverage.xml (for Codecov),
// pytest.txt and coverage.txt, and verdict.json; fail the job on the verdict after
// exporting, e.g. `… test export --path coverage && jq -e .passed coverage/verdict.json`.
// +cacheReason="source and digest-pinned images only"
func (m *Shipyard) Test(
	ctx context.Context,
	// Python versions to test (e.g. 3.12); default: from pyproject.toml.
	// +optional
	python []string,
	// Extra Python images, as 3.X=image@sha256:…, pinned by digest like every pin (a tag alone is refused).
	// +optional
	pythonImage []string,
	// The tests to run: unit (tests/unit), integration (tests/integration) or all. The
	// coverage threshold applies to all only.
	// +default="all"
	level string,
) (*dagger.Directory, error) {
	return call(m, func(m *Shipyard) (_ *dagger.Directory, err error) {
		p, versions, err := m.testMatrix(ctx, python, pythonImage, level)
		if err != nil {
			return nil, err
		}
		out, _, _ := p.Test(ctx, versions, level) // the verdict is in out
		return m.fromSDKDirectory(ctx, out)
	})
}

// testMatrix connects the pipeline and decides the versions to test, refusing a
// configuration error (an unknown level, an unpinned version) before anything runs.
func (m *Shipyard) testMatrix(ctx context.Context, python, pythonImage []string, level string) (*ci.Pipeline, []string, error) {
	if err := ci.CheckLevel(level); err != nil {
		return nil, nil, err
	}
	p, err := m.pipeline(ctx, pythonImage)
	if err != nil {
		return nil, nil, err
	}
	versions, err := p.TestVersions(ctx, python)
	if err != nil {
		return nil, nil, err
	}
	if err := p.CheckPinned(versions); err != nil {
		return nil, nil, err
	}
	return p, versions, nil
}

// TestCheck runs the tests as Test does and fails when they fail: the check `dagger check`
// runs. Use Test to keep the reports. On a Cloudcoil model repository (Shipyard installed
// there as a toolchain) it skips.
// +check
// +cacheReason="source and digest-pinned images only"
func (m *Shipyard) TestCheck(ctx context.Context) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		if skip, err := m.teskCheckSkipped(ctx); skip != "" || err != nil {
			return skip, err
		}
		p, versions, err := m.testMatrix(ctx, nil, nil, ci.LevelAll)
		if err != nil {
			return "", err
		}
		if _, _, err := p.Test(ctx, versions, ci.LevelAll); err != nil {
			return "", err
		}
		return fmt.Sprintf("tests passed on Python %s", strings.Join(versions, ", ")), nil
	})
}

// PythonVersions prints the test matrix read from pyproject.toml as a JSON list (e.g.
// ["3.10","3.11","3.12","3.13"]), for a workflow's strategy.matrix.
// +cacheReason="the source's pyproject.toml only"
func (m *Shipyard) PythonVersions(ctx context.Context) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		p, err := m.pipeline(ctx, nil)
		if err != nil {
			return "", err
		}
		versions, err := p.TestVersions(ctx, nil)
		if err != nil {
			return "", err
		}
		b, err := json.Marshal(versions)
		if err != nil {
			return "", err
		}
		return string(b), nil
	})
}

// PatchCoverage is Codecov's patch gate on a laptop: runs the tests under coverage, diffs the
// source against --base (from their merge base), and reports the added code lines no test
// runs; the verdict fails below 100%, as tesk-core's codecov.yml does, or when tests fail.
// Returns the reports whatever the verdict: patch-coverage.txt and verdict.json; fail after
// exporting, e.g. `… patch-coverage --base origin/dev export --path patch && jq -e .passed
// patch/verdict.json`. Fails itself only when nothing could be measured (a bad --base, a
// source without its Git history). The source needs its Git history.
// +cacheReason="the source with its history, and digest-pinned images only"
func (m *Shipyard) PatchCoverage(
	ctx context.Context,
	// The branch or commit the change goes to, e.g. origin/dev.
	base string,
	// The Python version to test on; default: the newest pinned.
	// +optional
	python string,
) (*dagger.Directory, error) {
	return call(m, func(m *Shipyard) (_ *dagger.Directory, err error) {
		p, err := m.pipeline(ctx, nil)
		if err != nil {
			return nil, err
		}
		out, _, err := p.PatchReports(ctx, base, python) // the verdict is in out
		if err != nil {
			return nil, err
		}
		return m.fromSDKDirectory(ctx, out)
	})
}

// Docs builds the docs with `mkdocs build --strict` and returns the site. On a Cloudcoil
// model repository (Shipyard installed there as a toolchain) it skips: an empty site.
// +check
// +cacheReason="source and digest-pinned images only"
func (m *Shipyard) Docs(ctx context.Context) (*dagger.Directory, error) {
	return call(m, func(m *Shipyard) (_ *dagger.Directory, err error) {
		if skip, err := m.teskCheckSkipped(ctx); skip != "" || err != nil {
			if err != nil {
				return nil, err
			}
			return m.engine().Directory(), nil // nothing to build: an empty site
		}
		p, err := m.pipeline(ctx, nil)
		if err != nil {
			return nil, err
		}
		site, err := p.DocsSite(ctx)
		if err != nil {
			return nil, err
		}
		return m.fromSDKDirectory(ctx, site)
	})
}

// Images builds every containers/<name>.Dockerfile (taskmaster and filer) from the root of
// the repository, with SETUPTOOLS_SCM_PRETEND_VERSION set to --version when given, for each
// platform images are published for (with-platforms; default linux/amd64 and linux/arm64):
// one container per image and platform, as push-by-digest publishes them.
// +cache="session"
// +allPlatforms
// +cacheReason="a list of containers: Dagger v0.21.8 cannot load one persisted by an earlier engine"
func (m *Shipyard) Images(
	ctx context.Context,
	// The package version without v (e.g. 0.11.0rc1); default: from Git history, else 0.0.0.dev0.
	// +optional
	version string,
) ([]*dagger.Container, error) {
	return call(m, func(m *Shipyard) (_ []*dagger.Container, err error) {
		// Per session, because Dagger v0.21.8 persists a list of containers with no result ID
		// per item (dagql/cache_persistence_self.go): after an engine restart, a list whose
		// containers were built fails to load ("load persisted directory snapshot link: zero
		// result ID"). Each image's build is still cached across sessions; only the list is
		// made again.
		_, images, err := m.images(ctx, version)
		if err != nil {
			return nil, err
		}
		out := make([]*dagger.Container, 0, len(images))
		for _, img := range images {
			built := []*sdk.Container{img.Container}
			if len(img.Variants) > 0 {
				built = built[:0]
				for _, v := range img.Variants { // one per platform of with-platforms
					built = append(built, v.Container)
				}
			}
			for _, b := range built {
				c, err := m.fromSDKContainer(ctx, b)
				if err != nil {
					return nil, fmt.Errorf("image %s: %w", img.Spec.Name, err)
				}
				out = append(out, c)
			}
		}
		return out, nil
	})
}

// Image builds one image, containers/<name>.Dockerfile, and returns it to chain: `image
// --name filer terminal`, `… publish --address …`, `… export --path filer.tar`.
// +cacheReason="source and digest-pinned images only"
func (m *Shipyard) Image(
	ctx context.Context,
	// The image's name: taskmaster or filer.
	name string,
	// The package version without v; default: from Git history, else 0.0.0.dev0.
	// +optional
	version string,
) (*dagger.Container, error) {
	return call(m, func(m *Shipyard) (_ *dagger.Container, err error) {
		p, err := m.pipeline(ctx, nil)
		if err != nil {
			return nil, err
		}
		img, err := p.ImageNamed(ctx, name, version)
		if err != nil {
			return nil, err
		}
		return m.fromSDKContainer(ctx, img.Container)
	})
}

// Scan builds the images and scans them with Trivy: the verdict fails on CRITICAL and HIGH
// vulnerabilities that have a fix, except those accepted in .trivyignore.yaml, whose entries
// must each have a reason (statement) and an expiry (expired_at). Returns the reports
// whatever the verdict: JSON, SARIF (accepted findings marked as suppressed), summary.txt
// and verdict.json; fail the job after exporting, e.g. `… scan export --path scan && jq -e
// .passed scan/verdict.json`, or run scan-check.
// +cache="session"
// +cacheReason="Trivy's vulnerability database changes daily"
func (m *Shipyard) Scan(
	ctx context.Context,
	// The package version without v; default: derived.
	// +optional
	version string,
	// Scan only this image (taskmaster or filer), as the workflow's job per image does;
	// default: every image.
	// +optional
	image string,
) (*dagger.Directory, error) {
	return call(m, func(m *Shipyard) (_ *dagger.Directory, err error) {
		p, images, err := m.images(ctx, version)
		if err != nil {
			return nil, err
		}
		if image != "" {
			img, err := p.ImageNamed(ctx, image, version)
			if err != nil {
				return nil, err
			}
			images = []ci.Image{img}
		}
		dir, _, err := p.Scan(ctx, images)
		return m.reports(ctx, dir, err)
	})
}

// ScanCheck scans the images as Scan does and fails on its verdict: the check `dagger check`
// runs. Use Scan to keep the reports. On a Cloudcoil model repository (Shipyard installed
// there as a toolchain) it skips.
// +check
// +cache="session"
// +cacheReason="Trivy's vulnerability database changes daily"
func (m *Shipyard) ScanCheck(ctx context.Context) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		skip, p, images, err := m.teskCheckImages(ctx)
		if skip != "" || err != nil {
			return skip, err
		}
		if _, _, err := p.Scan(ctx, images); err != nil {
			return "", err
		}
		return "scan passed: no fixable CRITICAL or HIGH vulnerability", nil
	})
}

// EndToEnd runs the end-to-end tests on a k3s cluster (a Dagger service) with both images built
// from the same source loaded into it, the manifests of tests/e2e/manifests applied and the
// HTTP server pod awaited. Returns pytest's output. The k3s service runs with insecure root
// capabilities: never call e2e on an engine shared with publish or release jobs.
// On a Cloudcoil model repository (Shipyard installed there as a toolchain) it skips.
// +check
// +cacheReason="source and digest-pinned images only"
func (m *Shipyard) EndToEnd(
	ctx context.Context,
	// The namespace the tests run in (they read TESK_E2E_NAMESPACE); created when not default.
	// +default="default"
	namespace string,
) (string, error) {
	return call(m, func(m *Shipyard) (_ string, err error) {
		skip, p, images, err := m.teskCheckImages(ctx)
		if skip != "" || err != nil {
			return skip, err
		}
		return p.E2E(ctx, images, namespace)
	})
}

// Ci runs the whole CI workflow concurrently (PR title, lint, the test matrix, end-to-end
// tests, docs, image scans; each image built once) and then the "CI passed" gate. Returns
// the artifacts whatever the verdict: coverage/, site/, scan/, summary.md (a table of every
// job) and verdict.json; fail the job after exporting, e.g. `… ci export --path ci && jq -e
// .passed ci/verdict.json`.
// +cache="session"
// +cacheReason="includes the scan"
func (m *Shipyard) Ci(
	ctx context.Context,
	// The pull request title to check; pushes have none.
	// +optional
	prTitle string,
	// Python versions to test; default: from pyproject.toml.
	// +optional
	python []string,
	// Extra Python images, as 3.X=image@sha256:…, pinned by digest like every pin (a tag alone is refused).
	// +optional
	pythonImage []string,
	// The tests to run: unit, integration or all.
	// +default="all"
	level string,
	// The namespace the end-to-end tests run in.
	// +default="default"
	namespace string,
) (*dagger.Directory, error) {
	return call(m, func(m *Shipyard) (_ *dagger.Directory, err error) {
		if err := ci.CheckLevel(level); err != nil {
			return nil, err
		}
		p, err := m.pipeline(ctx, pythonImage)
		if err != nil {
			return nil, err
		}
		_, artifacts, err := p.Run(ctx, ci.Options{PRTitle: prTitle, Python: python, Level: level, Namespace: namespace})
		return m.reports(ctx, artifacts, err)
	})
}
