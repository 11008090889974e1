package upstreams

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"
)

// ErrPyPINotFound is returned when PyPI has no project of that name.
var ErrPyPINotFound = errors.New("pypi: project not found")

// maxPyPIResponse bounds the JSON read from PyPI; Cloudcoil's document is a few kilobytes,
// and the largest projects stay far below this.
const maxPyPIResponse = 64 << 20

var nameSeparators = regexp.MustCompile(`[-_.]+`)

// NormalizeName is the PEP 503 normal form of a project name: lower-cased, each run of
// "-", "_" and "." replaced by one "-". So "CloudCoil" is "cloudcoil", while "Cloud_Coil"
// is "cloud-coil", a different project.
func NormalizeName(name string) string {
	return strings.ToLower(nameSeparators.ReplaceAllString(name, "-"))
}

// pypiTimeout bounds one request to PyPI, reading the body included, whichever client
// makes it (http.DefaultClient has no timeout): a stalled index must fail the run, not
// hold it. A project's JSON is a few megabytes at most.
var pypiTimeout = time.Minute

// BoundPyPIRequest gives one PyPI request its time bound; cancel releases it once the
// body is read.
func BoundPyPIRequest(ctx context.Context) (bounded context.Context, cancel context.CancelFunc) {
	return context.WithTimeout(ctx, pypiTimeout)
}

// PyPIURL is PyPI's own index, the default of every function that reads PyPI.
const PyPIURL = "https://pypi.org"

// FetchPyPI reads a project's versions from PyPI's JSON API (GET <baseURL>/pypi/<name>/json,
// baseURL such as "https://pypi.org"). A version counts as yanked when all its files are
// yanked; a version without files is left out, as pip would never install it.
func FetchPyPI(ctx context.Context, baseURL, name string, hc *http.Client) (PyPIInfo, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	if !packageName.MatchString(name) {
		return PyPIInfo{}, fmt.Errorf("pypi: %q is not a project name", name)
	}
	url := strings.TrimSuffix(baseURL, "/") + "/pypi/" + NormalizeName(name) + "/json"
	ctx, cancel := BoundPyPIRequest(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return PyPIInfo{}, fmt.Errorf("pypi: %s: %w", name, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return PyPIInfo{}, fmt.Errorf("pypi: get %s: %w", url, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return PyPIInfo{}, fmt.Errorf("pypi: %s: %w", name, ErrPyPINotFound)
	case resp.StatusCode != http.StatusOK:
		return PyPIInfo{}, fmt.Errorf("pypi: get %s: status %s", url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxPyPIResponse+1))
	if err != nil {
		return PyPIInfo{}, fmt.Errorf("pypi: read %s: %w", url, err)
	}
	if len(body) > maxPyPIResponse {
		return PyPIInfo{}, fmt.Errorf("pypi: %s: response larger than %d bytes", url, maxPyPIResponse)
	}
	info, err := DecodePyPI(body)
	if err != nil {
		return PyPIInfo{}, fmt.Errorf("pypi: %s: %w", name, err)
	}
	return info, nil
}

// pypiDocument is the part of PyPI's project JSON we read.
type pypiDocument struct {
	Info struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"info"`
	Releases map[string][]struct {
		Yanked bool `json:"yanked"`
	} `json:"releases"`
}

// DecodePyPI reads a PyPI project JSON document (the body FetchPyPI receives). Releases are
// returned sorted by version string for a deterministic result; Plan orders them itself.
func DecodePyPI(body []byte) (PyPIInfo, error) {
	var doc pypiDocument
	if err := json.Unmarshal(body, &doc); err != nil {
		return PyPIInfo{}, fmt.Errorf("decode project JSON: %w", err)
	}
	if doc.Releases == nil {
		return PyPIInfo{}, errors.New("decode project JSON: no releases object")
	}
	info := PyPIInfo{Name: doc.Info.Name, Latest: doc.Info.Version}
	for version, files := range doc.Releases {
		if len(files) == 0 {
			continue
		}
		yanked := true
		for _, f := range files {
			yanked = yanked && f.Yanked
		}
		info.Releases = append(info.Releases, PyPIRelease{Version: version, Yanked: yanked})
	}
	sort.Slice(info.Releases, func(i, j int) bool { return info.Releases[i].Version < info.Releases[j].Version })
	return info, nil
}
