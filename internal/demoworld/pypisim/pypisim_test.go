package pypisim

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"
)

func get(t *testing.T, s *Server, path string) (*http.Response, []byte) {
	t.Helper()
	resp, err := s.Client().Get(s.URL() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

type doc struct {
	Info struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"info"`
	LastSerial int                          `json:"last_serial"`
	Releases   map[string][]json.RawMessage `json:"releases"`
	URLs       []struct {
		Filename string `json:"filename"`
	} `json:"urls"`
}

type file struct {
	Filename          string            `json:"filename"`
	PackageType       string            `json:"packagetype"`
	Digests           map[string]string `json:"digests"`
	UploadTimeISO8601 string            `json:"upload_time_iso_8601"`
	Yanked            bool              `json:"yanked"`
	YankedReason      *string           `json:"yanked_reason"`
	PythonVersion     string            `json:"python_version"`
}

func TestProjectDocument(t *testing.T) {
	s := New(t)
	s.AddRelease("CloudCoil", "0.5.1")
	s.AddRelease("CloudCoil", "0.5.2")
	s.AddRelease("CloudCoil", "0.6.0rc1")
	s.AddEmptyRelease("CloudCoil", "0.5.9")
	if err := s.Yank("cloudcoil", "0.5.2", "broken"); err != nil {
		t.Fatal(err)
	}
	if err := s.YankFile("cloudcoil", "cloudcoil-0.5.1.tar.gz", ""); err != nil {
		t.Fatal(err)
	}

	resp, body := get(t, s, "/pypi/cloudcoil/json")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var d doc
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatal(err)
	}
	// 0.5.2 is yanked and 0.6.0rc1 a pre-release: PyPI's latest is 0.5.1.
	if d.Info.Name != "CloudCoil" || d.Info.Version != "0.5.1" {
		t.Errorf("info = %+v, want name CloudCoil, version 0.5.1", d.Info)
	}
	if len(d.URLs) != 2 || d.URLs[0].Filename != "cloudcoil-0.5.1-py3-none-any.whl" {
		t.Errorf("urls = %+v, want the files of 0.5.1", d.URLs)
	}
	var versions []string
	for v := range d.Releases {
		versions = append(versions, v)
	}
	slices.Sort(versions)
	if !slices.Equal(versions, []string{"0.5.1", "0.5.2", "0.5.9", "0.6.0rc1"}) {
		t.Errorf("releases = %v", versions)
	}
	if len(d.Releases["0.5.9"]) != 0 {
		t.Errorf("0.5.9 must have no files")
	}

	files := map[string]file{}
	for _, v := range versions {
		for _, raw := range d.Releases[v] {
			var f file
			if err := json.Unmarshal(raw, &f); err != nil {
				t.Fatal(err)
			}
			files[f.Filename] = f
			var fields map[string]any
			_ = json.Unmarshal(raw, &fields)
			for _, k := range []string{"filename", "packagetype", "digests", "upload_time_iso_8601", "yanked", "yanked_reason", "url", "size", "requires_python"} {
				if _, ok := fields[k]; !ok {
					t.Errorf("%s lacks field %q", f.Filename, k)
				}
			}
		}
	}
	whl, sdist := files["cloudcoil-0.5.2-py3-none-any.whl"], files["cloudcoil-0.5.2.tar.gz"]
	if whl.PackageType != Wheel || sdist.PackageType != Sdist || sdist.PythonVersion != "source" {
		t.Errorf("package types: %+v %+v", whl, sdist)
	}
	if !whl.Yanked || whl.YankedReason == nil || *whl.YankedReason != "broken" {
		t.Errorf("yanked wheel = %+v", whl)
	}
	if one := files["cloudcoil-0.5.1.tar.gz"]; !one.Yanked || one.YankedReason != nil {
		t.Errorf("a yank without reason has yanked_reason null: %+v", one)
	}
	if other := files["cloudcoil-0.5.1-py3-none-any.whl"]; other.Yanked {
		t.Errorf("yanking one file must leave the others")
	}
	if len(whl.Digests["sha256"]) != 64 || whl.UploadTimeISO8601 == "" {
		t.Errorf("digests/upload time: %+v", whl)
	}

	// Deterministic: a second server with the same history serves the same bytes.
	s2 := New(t)
	s2.AddRelease("CloudCoil", "0.5.1")
	s2.AddRelease("CloudCoil", "0.5.2")
	s2.AddRelease("CloudCoil", "0.6.0rc1")
	s2.AddEmptyRelease("CloudCoil", "0.5.9")
	_ = s2.Yank("cloudcoil", "0.5.2", "broken")
	_ = s2.YankFile("cloudcoil", "cloudcoil-0.5.1.tar.gz", "")
	if _, body2 := get(t, s2, "/pypi/cloudcoil/json"); string(body2) != string(body) {
		t.Errorf("documents differ between identical histories")
	}
}

func TestNamesErrorsAndLog(t *testing.T) {
	s := New(t)
	s.AddRelease("cloud-coil", "1.0.0")
	s.AddRelease("cloudcoil", "0.5.0")

	for _, tt := range []struct {
		path   string
		status int
	}{
		{"/pypi/cloudcoil/json", http.StatusOK},
		{"/pypi/Cloud_Coil/json", http.StatusOK}, // redirected to cloud-coil
		{"/pypi/CLOUDCOIL/json", http.StatusOK},  // redirected to cloudcoil
		{"/pypi/unknown/json", http.StatusNotFound},
		{"/pypi/cloudcoil/0.5.0/json", http.StatusNotFound},
		{"/simple/cloudcoil/", http.StatusNotFound},
	} {
		resp, body := get(t, s, tt.path)
		if resp.StatusCode != tt.status {
			t.Errorf("GET %s = %d, want %d", tt.path, resp.StatusCode, tt.status)
		}
		if tt.path == "/pypi/Cloud_Coil/json" {
			var d doc
			_ = json.Unmarshal(body, &d)
			if d.Info.Name != "cloud-coil" {
				t.Errorf("Cloud_Coil normalises to cloud-coil (PEP 503), got %q", d.Info.Name)
			}
		}
	}
	want := []Request{
		{"GET", "/pypi/cloudcoil/json", 200},
		{"GET", "/pypi/Cloud_Coil/json", 301},
		{"GET", "/pypi/cloud-coil/json", 200},
		{"GET", "/pypi/CLOUDCOIL/json", 301},
		{"GET", "/pypi/cloudcoil/json", 200},
		{"GET", "/pypi/unknown/json", 404},
		{"GET", "/pypi/cloudcoil/0.5.0/json", 404},
		{"GET", "/simple/cloudcoil/", 404},
	}
	if got := s.Requests(); !slices.Equal(got, want) {
		t.Errorf("log =\n%v\nwant\n%v", got, want)
	}

	s.ResetLog()
	s.FailNext(http.StatusServiceUnavailable)
	if resp, _ := get(t, s, "/pypi/cloudcoil/json"); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("injected failure: status %d", resp.StatusCode)
	}
	if resp, _ := get(t, s, "/pypi/cloudcoil/json"); resp.StatusCode != http.StatusOK {
		t.Errorf("after the failure: status %d", resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodPost, s.URL()+"/pypi/cloudcoil/json", nil)
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST status %d", resp.StatusCode)
	}
	if n := len(s.Requests()); n != 3 {
		t.Errorf("log after reset has %d entries, want 3", n)
	}
	if err := s.Yank("nope", "1.0", ""); err == nil {
		t.Errorf("Yank of an unknown project must fail")
	}
	if err := s.Yank("cloudcoil", "9.9.9", ""); err == nil {
		t.Errorf("Yank of an unknown version must fail")
	}
	if err := s.YankFile("cloudcoil", "nope.whl", ""); err == nil {
		t.Errorf("YankFile of an unknown file must fail")
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"cloudcoil": "cloudcoil", "CloudCoil": "cloudcoil", "Cloud_Coil": "cloud-coil",
		"cloud.coil": "cloud-coil", "cloud--_.coil": "cloud-coil", "Cloudcoil-Models-Istio": "cloudcoil-models-istio",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// The Integrity API serves a file's provenance (PEP 740) only for a file uploaded with a
// publisher, one attestation bundle per publisher (the environment null when the publisher
// names none), and 404 for everything else, as PyPI does.
func TestProvenance(t *testing.T) {
	s := New(t)
	env := "pypi"
	keda := Publisher{Kind: "GitHub", Repository: "cloudcoil/models-keda", Workflow: "pypi_publish.yml", Environment: &env}
	loose := Publisher{Kind: "GitHub", Repository: "cloudcoil/models-keda", Workflow: "pypi_publish.yml"}
	s.AddRelease("cloudcoil.models.keda", "2.16.1.0",
		File{Filename: "cloudcoil_models_keda-2.16.1.0-py3-none-any.whl", PackageType: Wheel, Publishers: []Publisher{keda}},
		File{Filename: "cloudcoil_models_keda-2.16.1.0.tar.gz", PackageType: Sdist, Publishers: []Publisher{keda, loose}})
	s.AddRelease("cloudcoil.models.keda", "2.16.0.0", File{Filename: "cloudcoil_models_keda-2.16.0.0.tar.gz", PackageType: Sdist})
	tests := []struct {
		path   string
		status int
		envs   []any // each bundle's publisher's environment, in order
	}{
		{"/integrity/cloudcoil-models-keda/2.16.1.0/cloudcoil_models_keda-2.16.1.0-py3-none-any.whl/provenance", http.StatusOK, []any{"pypi"}},
		{"/integrity/cloudcoil-models-keda/2.16.1.0/cloudcoil_models_keda-2.16.1.0.tar.gz/provenance", http.StatusOK, []any{"pypi", nil}},
		{"/integrity/cloudcoil-models-keda/2.16.0.0/cloudcoil_models_keda-2.16.0.0.tar.gz/provenance", http.StatusNotFound, nil},
		{"/integrity/cloudcoil-models-keda/2.16.0.0/cloudcoil_models_keda-2.16.1.0-py3-none-any.whl/provenance", http.StatusNotFound, nil},
		{"/integrity/cloudcoil-models-kyverno/2.16.1.0/x.whl/provenance", http.StatusNotFound, nil},
		{"/integrity/cloudcoil-models-keda/2.16.1.0/cloudcoil_models_keda-2.16.1.0-py3-none-any.whl", http.StatusNotFound, nil},
	}
	for _, tt := range tests {
		resp, body := get(t, s, tt.path)
		if resp.StatusCode != tt.status {
			t.Errorf("%s: %d, want %d", tt.path, resp.StatusCode, tt.status)
			continue
		}
		if tt.status != http.StatusOK {
			continue
		}
		var prov struct {
			Version int `json:"version"`
			Bundles []struct {
				Publisher    map[string]any `json:"publisher"`
				Attestations []any          `json:"attestations"`
			} `json:"attestation_bundles"`
		}
		if err := json.Unmarshal(body, &prov); err != nil || prov.Version != 1 || len(prov.Bundles) != len(tt.envs) {
			t.Fatalf("%s: %v, want %d bundles\n%s", tt.path, err, len(tt.envs), body)
		}
		for i, b := range prov.Bundles {
			p := b.Publisher
			env, present := p["environment"]
			if len(b.Attestations) == 0 || p["kind"] != "GitHub" || p["repository"] != "cloudcoil/models-keda" || p["workflow"] != "pypi_publish.yml" || !present || env != tt.envs[i] {
				t.Errorf("%s: bundle %d: publisher %v, %d attestations", tt.path, i, p, len(b.Attestations))
			}
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/vnd.pypi.integrity.v1+json" {
			t.Errorf("%s: Content-Type %q", tt.path, ct)
		}
	}
}
