// Package pypisim is a stateful simulation of PyPI's JSON API (GET /pypi/<project>/json) for
// tests: projects with versions and files, yanked files, PEP 503 name normalisation with
// PyPI's redirect to the normalised name, 404 for unknown projects, injected failures and a
// log of every request, so a test can assert what a flow asked for.
//
// The response follows the documented shape (https://docs.pypi.org/api/json/): "info"
// (with "version" the latest release), "releases" mapping each version to its files with
// "filename", "packagetype", "digests", "upload_time_iso_8601", "yanked" and
// "yanked_reason", "urls" (the files of info.version), "last_serial" and "vulnerabilities".
// Everything is deterministic: digests are derived from file names and upload times from a
// fixed clock unless given.
package pypisim

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"dagger/shipyard/internal/version"
)

// Package types PyPI reports for a file.
const (
	Wheel = "bdist_wheel"
	Sdist = "sdist"
)

// File is one uploaded distribution file.
type File struct {
	Filename       string
	PackageType    string // Wheel or Sdist
	UploadTime     time.Time
	RequiresPython string
	Yanked         bool
	YankedReason   string
	Size           int
	// Data is the file's bytes, when the test serves them: the JSON API then gives their
	// sha256 and a url on the simulator that downloads them.
	Data []byte
	// Publishers are the trusted publisher identities the file's attestations were made
	// with, one attestation bundle each in its provenance (PEP 740 groups a file's
	// attestations by the identity that signed them); the Integrity API serves the
	// provenance only when there is one, as PyPI does for a file uploaded with attestations.
	Publishers []Publisher
}

// Publisher is a trusted publisher identity as PEP 740's provenance carries it (GitHub's:
// the repository, the workflow file and the environment, which may be absent).
type Publisher struct {
	Kind        string  `json:"kind"`
	Repository  string  `json:"repository"`
	Workflow    string  `json:"workflow"`
	Environment *string `json:"environment"`
}

// Request is one entry of the request log.
type Request struct {
	Method string
	Path   string
	Status int
}

// Server is the simulator. Its methods are safe for concurrent use.
type Server struct {
	mu       sync.Mutex
	projects map[string]*project // by normalised name
	log      []Request
	failures []int // statuses for the next requests, in order
	clock    time.Time
	serial   int
	srv      *httptest.Server
}

type project struct {
	name     string   // display name as first added
	versions []string // in the order added
	files    map[string][]File
}

// epoch is the fixed clock upload times start from, one hour per file added.
var epoch = time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC)

// NewServer returns a simulator that is not listening; use it as an http.Handler.
func NewServer() *Server {
	return &Server{projects: map[string]*project{}, clock: epoch}
}

// New starts a simulator on a local port, closed when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := NewServer()
	s.srv = httptest.NewServer(s)
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the base URL to give clients ("http://127.0.0.1:port"); requests go to
// URL()+"/pypi/<project>/json".
func (s *Server) URL() string {
	if s.srv == nil {
		return ""
	}
	return s.srv.URL
}

// Client is an HTTP client for the simulator.
func (s *Server) Client() *http.Client {
	if s.srv == nil {
		return http.DefaultClient
	}
	return s.srv.Client()
}

var separators = regexp.MustCompile(`[-_.]+`)

// Normalize is the PEP 503 normal form of a project name.
func Normalize(name string) string {
	return strings.ToLower(separators.ReplaceAllString(name, "-"))
}

// AddRelease adds a version with the given files; with none, a wheel and an sdist named
// the way build backends name them.
func (s *Server) AddRelease(projectName, version string, files ...File) {
	if len(files) == 0 {
		stem := strings.ReplaceAll(Normalize(projectName), "-", "_") + "-" + version
		files = []File{
			{Filename: stem + "-py3-none-any.whl", PackageType: Wheel},
			{Filename: stem + ".tar.gz", PackageType: Sdist},
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.project(projectName)
	if _, ok := p.files[version]; !ok {
		p.versions = append(p.versions, version)
		p.files[version] = []File{}
	}
	for _, f := range files {
		if f.UploadTime.IsZero() {
			f.UploadTime = s.clock
			s.clock = s.clock.Add(time.Hour)
		}
		if f.Size == 0 {
			f.Size = 1024 + len(f.Filename)
		}
		p.files[version] = append(p.files[version], f)
	}
	s.serial++
}

// AddEmptyRelease adds a version without files (PyPI keeps such versions after every file
// is deleted; installers never see them).
func (s *Server) AddEmptyRelease(projectName, version string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.project(projectName)
	if _, ok := p.files[version]; !ok {
		p.versions = append(p.versions, version)
		p.files[version] = []File{}
	}
	s.serial++
}

// Yank marks every file of a version yanked, as PyPI's "yank release" does.
func (s *Server) Yank(projectName, version, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.projects[Normalize(projectName)]
	if !ok {
		return fmt.Errorf("pypisim: no project %q", projectName)
	}
	files, ok := p.files[version]
	if !ok {
		return fmt.Errorf("pypisim: %s has no version %q", projectName, version)
	}
	for i := range files {
		files[i].Yanked, files[i].YankedReason = true, reason
	}
	s.serial++
	return nil
}

// YankFile marks one file yanked, leaving the version's other files installable.
func (s *Server) YankFile(projectName, filename, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.projects[Normalize(projectName)]
	if !ok {
		return fmt.Errorf("pypisim: no project %q", projectName)
	}
	for _, v := range p.versions {
		for i, f := range p.files[v] {
			if f.Filename == filename {
				p.files[v][i].Yanked, p.files[v][i].YankedReason = true, reason
				s.serial++
				return nil
			}
		}
	}
	return fmt.Errorf("pypisim: %s has no file %q", projectName, filename)
}

// FailNext makes the next request (after any already queued) answer with status.
func (s *Server) FailNext(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, status)
}

// Requests returns a copy of the request log.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// ResetLog empties the request log, e.g. between two runs of a flow.
func (s *Server) ResetLog() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = nil
}

func (s *Server) project(name string) *project {
	key := Normalize(name)
	p, ok := s.projects[key]
	if !ok {
		p = &project{name: name, files: map[string][]File{}}
		s.projects[key] = p
	}
	return p
}

// ServeHTTP answers GET /pypi/<project>/json.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	status := s.serve(w, r)
	s.log = append(s.log, Request{Method: r.Method, Path: r.URL.Path, Status: status})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) int {
	if len(s.failures) > 0 {
		status := s.failures[0]
		s.failures = s.failures[1:]
		http.Error(w, http.StatusText(status), status)
		return status
	}
	if file, ok := strings.CutPrefix(r.URL.Path, "/packages/"); ok {
		return s.download(w, file)
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, "/integrity/"); ok {
		return s.provenance(w, rest)
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/pypi/")
	name, ok2 := strings.CutSuffix(rest, "/json")
	if !ok || !ok2 || name == "" || strings.Contains(name, "/") {
		return notFound(w)
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return http.StatusMethodNotAllowed
	}
	p, ok := s.projects[Normalize(name)]
	if !ok {
		return notFound(w)
	}
	if canonical := Normalize(name); canonical != name {
		// PyPI redirects other spellings to the normalised name.
		http.Redirect(w, r, "/pypi/"+canonical+"/json", http.StatusMovedPermanently)
		return http.StatusMovedPermanently
	}
	body, err := json.Marshal(s.document(p))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-PyPI-Last-Serial", strconv.Itoa(s.serial))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(body)
	}
	return http.StatusOK
}

// download serves the bytes of a file added with Data.
func (s *Server) download(w http.ResponseWriter, filename string) int {
	for _, p := range s.projects {
		for _, files := range p.files {
			for _, f := range files {
				if f.Filename == filename && f.Data != nil {
					w.Header().Set("Content-Type", "application/octet-stream")
					w.WriteHeader(http.StatusOK)
					_, _ = w.Write(f.Data)
					return http.StatusOK
				}
			}
		}
	}
	return notFound(w)
}

// provenance serves the Integrity API's GET /integrity/<project>/<version>/<filename>/provenance:
// the file's provenance object (PEP 740), an attestation bundle per publisher, or 404 when
// the project, version or file is unknown or the file has no attestations.
func (s *Server) provenance(w http.ResponseWriter, rest string) int {
	parts := strings.Split(rest, "/")
	if len(parts) != 4 || parts[3] != "provenance" {
		return notFound(w)
	}
	p, ok := s.projects[Normalize(parts[0])]
	if !ok {
		return notFound(w)
	}
	for _, f := range p.files[parts[1]] {
		if f.Filename != parts[2] || len(f.Publishers) == 0 {
			continue
		}
		bundles := make([]any, 0, len(f.Publishers))
		for _, p := range f.Publishers {
			bundles = append(bundles, map[string]any{
				"publisher": p,
				// The attestation's content is not simulated: Shipyard reads the publisher.
				"attestations": []any{map[string]any{"version": 1, "envelope": map[string]string{}, "verification_material": map[string]string{}}},
			})
		}
		body, err := json.Marshal(map[string]any{"version": 1, "attestation_bundles": bundles})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return http.StatusInternalServerError
		}
		w.Header().Set("Content-Type", "application/vnd.pypi.integrity.v1+json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
		return http.StatusOK
	}
	return notFound(w)
}

func notFound(w http.ResponseWriter) int {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte(`{"message": "Not Found"}`))
	return http.StatusNotFound
}

type fileJSON struct {
	CommentText       *string           `json:"comment_text"`
	Digests           map[string]string `json:"digests"`
	Downloads         int               `json:"downloads"`
	Filename          string            `json:"filename"`
	HasSig            bool              `json:"has_sig"`
	MD5Digest         string            `json:"md5_digest"`
	PackageType       string            `json:"packagetype"`
	PythonVersion     string            `json:"python_version"`
	RequiresPython    *string           `json:"requires_python"`
	Size              int               `json:"size"`
	UploadTime        string            `json:"upload_time"`
	UploadTimeISO8601 string            `json:"upload_time_iso_8601"`
	URL               string            `json:"url"`
	Yanked            bool              `json:"yanked"`
	YankedReason      *string           `json:"yanked_reason"`
}

type infoJSON struct {
	Name           string  `json:"name"`
	Version        string  `json:"version"`
	Summary        string  `json:"summary"`
	PackageURL     string  `json:"package_url"`
	ProjectURL     string  `json:"project_url"`
	ReleaseURL     string  `json:"release_url"`
	RequiresPython *string `json:"requires_python"`
	Yanked         bool    `json:"yanked"`
	YankedReason   *string `json:"yanked_reason"`
}

type documentJSON struct {
	Info            infoJSON              `json:"info"`
	LastSerial      int                   `json:"last_serial"`
	Releases        map[string][]fileJSON `json:"releases"`
	URLs            []fileJSON            `json:"urls"`
	Vulnerabilities []any                 `json:"vulnerabilities"`
}

func (s *Server) document(p *project) documentJSON {
	canonical := Normalize(p.name)
	doc := documentJSON{
		LastSerial:      s.serial,
		Releases:        map[string][]fileJSON{},
		URLs:            []fileJSON{},
		Vulnerabilities: []any{},
	}
	for _, v := range p.versions {
		files := make([]fileJSON, 0, len(p.files[v]))
		for _, f := range p.files[v] {
			files = append(files, fileDocument(f, s.URL()))
		}
		doc.Releases[v] = files
	}
	latest := p.latest()
	doc.Info = infoJSON{
		Name:       p.name,
		Version:    latest,
		Summary:    p.name + " (simulated)",
		PackageURL: "https://pypi.org/project/" + canonical + "/",
		ProjectURL: "https://pypi.org/project/" + canonical + "/",
		ReleaseURL: "https://pypi.org/project/" + canonical + "/" + latest + "/",
	}
	if latest != "" {
		doc.URLs = doc.Releases[latest]
		doc.Info.Yanked = allYanked(p.files[latest])
		if doc.Info.Yanked && len(p.files[latest]) > 0 {
			doc.Info.YankedReason = nullable(p.files[latest][0].YankedReason)
		}
	}
	return doc
}

func fileDocument(f File, base string) fileJSON {
	sha := sha256.Sum256([]byte(f.Filename))
	if f.Data != nil {
		sha = sha256.Sum256(f.Data)
	}
	md := md5.Sum([]byte(f.Filename))
	blake := sha256.Sum256([]byte("blake2b:" + f.Filename)) // stands in for blake2b-256: same length, deterministic
	python := "py3"
	if f.PackageType == Sdist {
		python = "source"
	}
	out := fileJSON{
		Digests: map[string]string{
			"blake2b_256": hex.EncodeToString(blake[:]),
			"md5":         hex.EncodeToString(md[:]),
			"sha256":      hex.EncodeToString(sha[:]),
		},
		Downloads:         -1,
		Filename:          f.Filename,
		MD5Digest:         hex.EncodeToString(md[:]),
		PackageType:       f.PackageType,
		PythonVersion:     python,
		RequiresPython:    nullable(f.RequiresPython),
		Size:              f.Size,
		UploadTime:        f.UploadTime.UTC().Format("2006-01-02T15:04:05"),
		UploadTimeISO8601: f.UploadTime.UTC().Format("2006-01-02T15:04:05.000000Z"),
		URL:               "https://files.pythonhosted.org/packages/" + hex.EncodeToString(blake[:1]) + "/" + hex.EncodeToString(blake[1:2]) + "/" + hex.EncodeToString(blake[2:]) + "/" + f.Filename,
		Yanked:            f.Yanked,
		YankedReason:      nil,
	}
	if f.Data != nil {
		out.URL = base + "/packages/" + f.Filename
	}
	if f.Yanked {
		out.YankedReason = nullable(f.YankedReason)
	}
	return out
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func allYanked(files []File) bool {
	for _, f := range files {
		if !f.Yanked {
			return false
		}
	}
	return len(files) > 0
}

// latest approximates PyPI's info.version: the highest final release (digits and dots
// only) that has files and is not yanked; failing that, the last version added with files.
func (p *project) latest() string {
	best, bestParts := "", version.Release(nil)
	for _, v := range p.versions {
		parts, err := version.ParseRelease(v)
		if err != nil || len(p.files[v]) == 0 || allYanked(p.files[v]) {
			continue
		}
		if bestParts == nil || parts.Compare(bestParts) > 0 {
			best, bestParts = v, parts
		}
	}
	if best != "" {
		return best
	}
	for i := len(p.versions) - 1; i >= 0; i-- {
		if len(p.files[p.versions[i]]) > 0 {
			return p.versions[i]
		}
	}
	return ""
}
