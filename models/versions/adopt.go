package versions

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"dagger.io/dagger"

	"dagger/shipyard/models/upstreams"
)

// ProposeUpstreams reads what a first models/upstreams.json is inferred from in a
// Cloudcoil checkout — every models/<name>/cookiecutter.yaml and the model template's
// pyproject.toml — and proposes the file (upstreams.ProposeFile). A checkout that already
// has the file gets the proposal too, for comparison. Folders under models/ without a
// cookiecutter.yaml are not integrations and are skipped.
func ProposeUpstreams(ctx context.Context, src *dagger.Directory, pkg string, pypi PyPISource) (*upstreams.Proposal, error) {
	entries, err := src.Directory("models").Entries(ctx)
	if err != nil {
		return nil, fmt.Errorf("models/: %w (is --source the Cloudcoil repository?)", err)
	}
	sort.Strings(entries)
	cookiecutters := map[string][]byte{}
	for _, e := range entries {
		name, isDir := strings.CutSuffix(e, "/")
		if !isDir {
			continue
		}
		b, found, err := readIfExists(ctx, src, upstreams.CookiecutterPath(name))
		if err != nil {
			return nil, err
		}
		if found {
			cookiecutters[name] = b
		}
	}
	if len(cookiecutters) == 0 {
		return nil, fmt.Errorf("no models/<name>/cookiecutter.yaml in --source: is it the Cloudcoil repository?")
	}
	template, found, err := readIfExists(ctx, src, upstreams.TemplatePyproject)
	if err != nil {
		return nil, err
	}
	if !found {
		template = nil
	}
	versioning, _, err := readIfExists(ctx, src, upstreams.VersioningPath)
	if err != nil {
		return nil, err
	}
	info, err := upstreams.FetchPyPI(ctx, pypi.URL, pkg, pypi.Client)
	if err != nil {
		return nil, fmt.Errorf("%s's releases decide the current minor: %w (check --pypi-url)", pkg, err)
	}
	evidence := upstreams.CloudcoilEvidence{Versioning: versioning}
	for _, r := range info.Releases {
		if !r.Yanked {
			evidence.Releases = append(evidence.Releases, r.Version)
		}
	}
	return upstreams.ProposeFile(cookiecutters, template, pkg, evidence)
}

// PyPISource is the index Cloudcoil's releases are read from, and the HTTP client (nil:
// the default).
type PyPISource struct {
	URL    string
	Client *http.Client
}

// readIfExists reads one file of the checkout, telling a missing file from a failure.
func readIfExists(ctx context.Context, src *dagger.Directory, path string) ([]byte, bool, error) {
	ok, err := src.Exists(ctx, path)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	if !ok {
		return nil, false, nil
	}
	s, err := src.File(path).Contents(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return []byte(s), true, nil
}
