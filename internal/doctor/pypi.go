package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// Publisher is the trusted publisher identity PyPI recorded for an upload (PEP 740): for
// GitHub, the repository, the workflow file and the deployment environment it ran in.
type Publisher struct {
	Kind        string `json:"kind"`
	Repository  string `json:"repository"`
	Workflow    string `json:"workflow"`
	Environment string `json:"environment,omitempty"`
}

// PyPIUpload is what PyPI shows of a project's newest version: its files, and who
// uploaded each.
type PyPIUpload struct {
	// Read is false when PyPI was not asked (no distribution name).
	Read bool `json:"read"`
	// Exists is false when PyPI has no such project: nothing was uploaded yet.
	Exists  bool   `json:"exists"`
	Version string `json:"version,omitempty"`
	// Files are the files of Version as PyPI lists them, each with its provenance's
	// publishers; at most maxPyPIFiles of them.
	Files []PyPIFile `json:"files,omitempty"`
	// Unread counts the files of Version past maxPyPIFiles, whose provenance was not read.
	Unread int `json:"unread,omitempty"`
	// Error is why PyPI could not be read.
	Error string `json:"error,omitempty"`
}

// PyPIFile is one file of a version and the trusted publishers its provenance records:
// one per attestation bundle (PEP 740 groups a file's attestations by the identity that
// made them), none when the file has no provenance (uploaded with a token, or before PyPI
// recorded attestations).
type PyPIFile struct {
	Name       string      `json:"name"`
	Publishers []Publisher `json:"publishers,omitempty"`
}

// pypiTimeout bounds each request to PyPI: doctor reads small documents.
const pypiTimeout = 30 * time.Second

// maxPyPIBody bounds a document doctor reads from PyPI.
const maxPyPIBody = 32 << 20

// maxPyPIFiles bounds the files of a version whose provenance doctor reads, one request
// each: a model's version has two (a wheel and an sdist).
const maxPyPIFiles = 32

var pypiSeparators = regexp.MustCompile(`[-_.]+`)

// GatherPyPIUpload reads, from PyPI's JSON API at baseURL, the newest version of project
// and the provenance of each of its files through the Integrity API
// (/integrity/<project>/<version>/<file>/provenance), every attestation bundle of it.
func GatherPyPIUpload(ctx context.Context, hc *http.Client, baseURL, project string) (PyPIUpload, error) {
	up := PyPIUpload{Read: true}
	name := strings.ToLower(pypiSeparators.ReplaceAllString(project, "-"))
	base := strings.TrimSuffix(baseURL, "/")
	var doc struct {
		Info struct {
			Version string `json:"version"`
		} `json:"info"`
		URLs []struct {
			Filename string `json:"filename"`
		} `json:"urls"`
	}
	found, err := getJSON(ctx, hc, base+"/pypi/"+url.PathEscape(name)+"/json", &doc)
	if err != nil || !found {
		return up, err
	}
	up.Exists, up.Version = true, doc.Info.Version
	files := doc.URLs
	if len(files) > maxPyPIFiles {
		up.Unread, files = len(files)-maxPyPIFiles, files[:maxPyPIFiles]
	}
	for _, f := range files {
		var prov struct {
			Bundles []struct {
				Publisher Publisher `json:"publisher"`
			} `json:"attestation_bundles"`
		}
		found, err := getJSON(ctx, hc, base+"/integrity/"+url.PathEscape(name)+"/"+url.PathEscape(up.Version)+"/"+url.PathEscape(f.Filename)+"/provenance", &prov)
		if err != nil {
			return up, err
		}
		file := PyPIFile{Name: f.Filename}
		if found {
			for _, b := range prov.Bundles {
				file.Publishers = append(file.Publishers, b.Publisher)
			}
		}
		up.Files = append(up.Files, file)
	}
	return up, nil
}

// getJSON reads a JSON document into v; found is false on 404.
func getJSON(ctx context.Context, hc *http.Client, u string, v any) (bool, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, pypiTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, fmt.Errorf("pypi: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return false, fmt.Errorf("pypi: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return false, nil
	case resp.StatusCode != http.StatusOK:
		return false, fmt.Errorf("pypi: %s answered %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxPyPIBody+1))
	if err != nil {
		return false, fmt.Errorf("pypi: %s: %w", u, err)
	}
	if len(body) > maxPyPIBody {
		return false, fmt.Errorf("pypi: %s: larger than %d bytes", u, maxPyPIBody)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return false, fmt.Errorf("pypi: %s: not the JSON PyPI serves: %w", u, err)
	}
	return true, nil
}
