package ci

import (
	"context"
	"fmt"

	"dagger.io/dagger"
)

// DocsSite builds the docs strictly (a broken link or a page missing from nav fails) and
// returns the built site. It sees only what the docs need, so only a docs change reruns it.
func (p *Pipeline) DocsSite(ctx context.Context) (*dagger.Directory, error) {
	ctr, err := p.python(p.toolPython(), p.docsSource())
	if err != nil {
		return nil, err
	}
	site := ctr.
		// MkDocs reads docs/ only: the project itself is not installed, so code changes
		// leave the docs job cached.
		WithExec([]string{"uv", "sync", "--frozen", "--extra", "docs", "--no-install-project"}).
		WithExec([]string{"uv", "run", "mkdocs", "build", "--strict", "--site-dir", "/site"}).
		Directory("/site")
	if _, err := site.Sync(ctx); err != nil {
		return nil, fmt.Errorf("mkdocs build --strict: %w", err)
	}
	return site, nil
}
