package ci

import (
	"context"

	"dagger.io/dagger"
)

// LintContainer runs the project's pre-commit hooks on every file, checks that uv.lock
// matches pyproject.toml, and validates CITATION.cff with cffconvert, each as its own step
// so a failure names the check. Returns the container so callers can read its output.
func (p *Pipeline) LintContainer() (*dagger.Container, error) {
	ctr, err := p.python(p.toolPython(), p.lintSource())
	if err != nil {
		return nil, err
	}
	return ctr.
		WithMountedCache("/root/.cache/pre-commit", p.cacheVolume(preCommitCacheVolume)).
		WithExec([]string{"uv", "sync", "--frozen", "--extra", "dev"}).
		// pre-commit lists files with git; the source comes without history, so index it.
		WithExec([]string{"sh", "-c", "git init -q 2>/dev/null || (apt-get update -qq && apt-get install -y -qq git >/dev/null && git init -q); git add -A"}).
		WithExec([]string{"uv", "run", "pre-commit", "run", "--all-files", "--show-diff-on-failure", "--color", "never"}).
		WithExec([]string{"uv", "lock", "--check"}).
		WithExec([]string{"uvx", "--from", "cffconvert==2.0.0", "cffconvert", "--validate", "--infile", "CITATION.cff"}), nil
}

// Lint runs LintContainer and returns its combined report.
func (p *Pipeline) Lint(ctx context.Context) (string, error) {
	ctr, err := p.LintContainer()
	if err != nil {
		return "", err
	}
	out, err := ctr.Stdout(ctx)
	if err != nil {
		return "", err
	}
	return out, nil
}
