package ci

import (
	"context"
	"fmt"

	"dagger.io/dagger"
)

// DocsSite builds the docs strictly (a broken link or a page missing from nav fails) and
// returns the built site. It sees only what the docs need, so only a docs change reruns it.
func (p *Pipeline) DocsSite(ctx context.Context) (*dagger.Directory, error) {
	src := p.Source.Filter(dagger.DirectoryFilterOpts{Include: docsInputs})
	ctr, err := p.python(p.toolPython(), src)
	if err != nil {
		return nil, fmt.Errorf("docs: %w", err)
	}
	site := ctr.
		WithExec([]string{"uv", "sync", "--frozen", "--extra", "docs"}).
		WithExec([]string{"uv", "run", "mkdocs", "build", "--strict", "--site-dir", "/site"}).
		Directory("/site")
	if _, err := site.Sync(ctx); err != nil {
		return nil, fmt.Errorf("docs: mkdocs build --strict: %w", err)
	}
	return site, nil
}
