package modelenv

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"dagger/shipyard/models/upstreams"
)

// maxPyPIDocument bounds the project JSON read; a model package's stays far below it.
const maxPyPIDocument = 64 << 20

// PyPIVersions lists every version PyPI has of a project: yanked versions and versions
// whose files were all deleted included, since PyPI never accepts a deleted file's name
// again and a published version is immutable either way. A project PyPI does not know
// (a package before its first upload) has none.
func PyPIVersions(ctx context.Context, hc *http.Client, baseURL, project string) ([]string, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	url := strings.TrimSuffix(baseURL, "/") + "/pypi/" + NormaliseName(project) + "/json"
	ctx, cancel := upstreams.BoundPyPIRequest(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("pypi: %s: %w", project, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("pypi: versions of %s: %w", project, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, nil
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("pypi: versions of %s: %s answered %s; allocation needs every published version, so the run stops", project, url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxPyPIDocument+1))
	if err != nil {
		return nil, fmt.Errorf("pypi: versions of %s: %w", project, err)
	}
	if len(body) > maxPyPIDocument {
		return nil, fmt.Errorf("pypi: versions of %s: document larger than %d bytes", project, maxPyPIDocument)
	}
	var doc struct {
		Releases map[string]json.RawMessage `json:"releases"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("pypi: versions of %s: %w", project, err)
	}
	if doc.Releases == nil {
		return nil, fmt.Errorf("pypi: versions of %s: the document has no releases object", project)
	}
	out := make([]string, 0, len(doc.Releases))
	for v := range doc.Releases {
		out = append(out, v)
	}
	sort.Strings(out)
	return out, nil
}
