package models

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

const fixturePyproject = `[project]
name = "cloudcoil.models.example"
version = "1.31.5.0"
dependencies = [
    "cloudcoil>=0.7.1,<0.8",
]

[build-system]
requires = ["hatchling>=1.18.0"]
build-backend = "hatchling.build"

[tool.mypy]
python_version = "3.14"
`

const fixtureLock = `version = 1
requires-python = ">=3.14"

[[package]]
name = "cloudcoil"
version = "0.7.1"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "cloudcoil-models-example"
version = "1.31.5.0"
source = { editable = "." }
dependencies = [
    { name = "cloudcoil" },
]

[package.metadata]
requires-dist = [{ name = "cloudcoil", specifier = ">=0.7.1,<0.8" }]
`

// checkoutFiles is a small generated model repository.
func checkoutFiles() map[string]string {
	return map[string]string{
		"pyproject.toml":                       fixturePyproject,
		"uv.lock":                              fixtureLock,
		"README.md":                            "# models\n",
		"cloudcoil/models/example/__init__.py": "# Generated\n__version__ = \"1.31.5.0\"\nfrom . import apps as apps\n",
		"cloudcoil/models/example/_lookup.py":  "_MODELS = {\n    (\"Widget\", \"example.io/v1\"): (\"cloudcoil.models.example.apps.v1\", \"Widget\"),\n}\n",
		"cloudcoil/models/example/.cloudcoil-generated.json": "[\"__init__.py\", \"_lookup.py\", \"apps/__init__.py\", \"apps/v1.py\", \"py.typed\"]\n",
		"cloudcoil/models/example/py.typed":                  "",
		"cloudcoil/models/example/apps/__init__.py":          "from . import v1 as v1\n",
		"cloudcoil/models/example/apps/v1.py":                "# Generated\nfrom cloudcoil.resources import Resource\n\n\nclass Widget(Resource):\n    size: int\n",
	}
}

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for p, content := range files {
		m[p] = &fstest.MapFile{Data: []byte(content), Mode: 0o644}
	}
	return m
}

func mustFingerprint(t *testing.T, files fs.FS) string {
	t.Helper()
	fp, err := Fingerprint(files)
	if err != nil {
		t.Fatalf("Fingerprint: %v", err)
	}
	return fp
}

func TestFingerprintFormat(t *testing.T) {
	fp := mustFingerprint(t, mapFS(checkoutFiles()))
	if !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(fp) {
		t.Errorf("Fingerprint = %q, want sha256:<64 hex>", fp)
	}
}

// TestFingerprintIgnoresOrderAndTimes writes the same tree twice on disk, in
// opposite orders and with different modification times and modes.
func TestFingerprintIgnoresOrderAndTimes(t *testing.T) {
	files := checkoutFiles()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	write := func(dir string, order []string, mtime time.Time, mode os.FileMode) {
		for _, p := range order {
			full := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(files[p]), mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(full, mtime, mtime); err != nil {
				t.Fatal(err)
			}
		}
	}
	a, b := t.TempDir(), t.TempDir()
	write(a, paths, time.Unix(1_000_000, 0), 0o644)
	reversed := make([]string, len(paths))
	for i, p := range paths {
		reversed[len(paths)-1-i] = p
	}
	write(b, reversed, time.Unix(2_000_000_000, 0), 0o755)
	if fa, fb := mustFingerprint(t, os.DirFS(a)), mustFingerprint(t, os.DirFS(b)); fa != fb {
		t.Errorf("same content, different order and times: %s != %s", fa, fb)
	}
	if fa, fm := mustFingerprint(t, os.DirFS(a)), mustFingerprint(t, mapFS(files)); fa != fm {
		t.Errorf("disk and in-memory trees differ: %s != %s", fa, fm)
	}
}

func TestFingerprintRules(t *testing.T) {
	const model = "cloudcoil/models/example/apps/v1.py"
	tests := []struct {
		name   string
		change func(m map[string]string)
		same   bool
	}{
		{name: "pyproject [project] version", same: true, change: func(m map[string]string) {
			m["pyproject.toml"] = strings.Replace(m["pyproject.toml"], `version = "1.31.5.0"`, `version = "1.31.5.7"`, 1)
		}},
		{name: "pyproject version with CRLF and spacing", same: true, change: func(m map[string]string) {
			m["pyproject.toml"] = strings.Replace(m["pyproject.toml"], `version = "1.31.5.0"`, `  "version"="1.31.5.7"  # set by release`, 1)
		}},
		{name: "uv.lock own package version", same: true, change: func(m map[string]string) {
			m["uv.lock"] = strings.Replace(m["uv.lock"], `version = "1.31.5.0"`, `version = "1.31.5.7"`, 1)
		}},
		{name: "__version__ in __init__.py", same: true, change: func(m map[string]string) {
			p := "cloudcoil/models/example/__init__.py"
			m[p] = strings.Replace(m[p], `"1.31.5.0"`, `"1.31.5.7"`, 1)
		}},
		{name: "setuptools-scm _version.py", same: true, change: func(m map[string]string) {
			p := "cloudcoil/models/example/_version.py"
			m[p] = strings.ReplaceAll(strings.ReplaceAll(m[p], "1.31.5.0", "1.31.5.7"), "5, 0)", "5, 7)")
		}},
		{name: "PKG-INFO Version header", same: true, change: func(m map[string]string) {
			m["PKG-INFO"] = strings.Replace(m["PKG-INFO"], "Version: 1.31.5.0", "version:1.31.5.7", 1)
		}},
		{name: "PKG-INFO body is not a header", change: func(m map[string]string) {
			m["PKG-INFO"] = strings.Replace(m["PKG-INFO"], "Version: body", "Version: other", 1)
		}},
		{name: "ignored tool output", same: true, change: func(m map[string]string) {
			m[".git/HEAD"] = "ref: refs/heads/main\n"
			m["cloudcoil/models/example/__pycache__/v1.cpython-314.pyc"] = "\x00"
			m["cloudcoil/models/example/apps/v1.pyc"] = "\x00"
			m["dist/x-1.whl"] = "zip"
			m["build/lib/x.py"] = "x"
			m["cloudcoil_models_example.egg-info/PKG-INFO"] = "x"
			m[".venv/bin/python"] = "x"
			m[".mypy_cache/x"] = "x"
			m[".cloudcoil-release.json"] = `{"fingerprint": "x"}`
			m["coverage.xml"] = "<coverage/>"
		}},
		{name: "one byte of a model", change: func(m map[string]string) {
			m[model] = strings.Replace(m[model], "size: int", "size: str", 1)
		}},
		{name: "model renamed", change: func(m map[string]string) {
			m["cloudcoil/models/example/apps/v2.py"] = m[model]
			delete(m, model)
		}},
		{name: "file added", change: func(m map[string]string) {
			m["cloudcoil/models/example/apps/v2.py"] = ""
		}},
		{name: "nested build/ is generated code", change: func(m map[string]string) {
			m["cloudcoil/models/example/build/v1.py"] = "class Build: ...\n"
		}},
		{name: "content moved between files", change: func(m map[string]string) {
			m["cloudcoil/models/example/apps/__init__.py"] += "x"
			m[model] = strings.TrimPrefix(m[model], "#")
		}},
		{name: "pyproject dependency", change: func(m map[string]string) {
			m["pyproject.toml"] = strings.Replace(m["pyproject.toml"], "<0.8", "<0.9", 1)
		}},
		{name: "pyproject version outside [project]", change: func(m map[string]string) {
			m["pyproject.toml"] += "\n[tool.other]\nversion = \"2\"\n"
		}},
		{name: "pyproject python_version", change: func(m map[string]string) {
			m["pyproject.toml"] = strings.Replace(m["pyproject.toml"], `python_version = "3.14"`, `python_version = "3.15"`, 1)
		}},
		{name: "uv.lock dependency version", change: func(m map[string]string) {
			m["uv.lock"] = strings.Replace(m["uv.lock"], `version = "0.7.1"`, `version = "0.7.2"`, 1)
		}},
		{name: "version-like code in a model module", change: func(m map[string]string) {
			m[model] += "__version__ = \"1\"\n"
		}},
		{name: "indented __version__ is not module level", change: func(m map[string]string) {
			p := "cloudcoil/models/example/apps/__init__.py"
			m[p] += "if True:\n    __version__ = \"1\"\n"
		}},
	}
	// Version-bearing files beyond the plain checkout.
	withMetadata := func() map[string]string {
		m := checkoutFiles()
		m["cloudcoil/models/example/_version.py"] = "__version__ = version = '1.31.5.0'\n__version_tuple__ = version_tuple = (1, 31, 5, 0)\n"
		m["PKG-INFO"] = "Metadata-Version: 2.4\nName: x\nVersion: 1.31.5.0\n\nVersion: body stays\n"
		return m
	}
	base := mustFingerprint(t, mapFS(withMetadata()))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := withMetadata()
			tt.change(files)
			got := mustFingerprint(t, mapFS(files))
			if (got == base) != tt.same {
				t.Errorf("fingerprint same = %v, want %v", got == base, tt.same)
			}
		})
	}
}

func TestFingerprintSymlinks(t *testing.T) {
	withLink := func(target string) fstest.MapFS {
		m := mapFS(checkoutFiles())
		m["cloudcoil/models/example/latest.py"] = &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink}
		return m
	}
	a := mustFingerprint(t, withLink("apps/v1.py"))
	if b := mustFingerprint(t, withLink("apps/v2.py")); a == b {
		t.Error("symlink target change not detected")
	}
	if c := mustFingerprint(t, mapFS(checkoutFiles())); a == c {
		t.Error("added symlink not detected")
	}
}

func TestFingerprintErrors(t *testing.T) {
	m := mapFS(checkoutFiles())
	m["cloudcoil/models/example/fifo"] = &fstest.MapFile{Mode: fs.ModeNamedPipe}
	if _, err := Fingerprint(m); err == nil || !strings.Contains(err.Error(), "unsupported file type") {
		t.Errorf("named pipe: err = %v, want unsupported file type", err)
	}
	if _, err := Fingerprint(os.DirFS(filepath.Join(t.TempDir(), "missing"))); err == nil {
		t.Error("missing root: want error")
	}
}

// FuzzNormaliseVersion checks that version normalisation of any file keeps
// the line structure, is idempotent, and only ever touches whole lines.
func FuzzNormaliseVersion(f *testing.F) {
	f.Add("pyproject.toml", fixturePyproject)
	f.Add("uv.lock", fixtureLock)
	f.Add("PKG-INFO", "Metadata-Version: 2.4\r\nVersion: 1.0\r\n\r\nbody\n")
	f.Add("_version.py", "__version__ = version = '1.2.3'\n__version_tuple__ = (1, 2)\n")
	f.Add("pyproject.toml", "project.version = \"1\"\n[\"project\"]\nversion='2'\n[[tool.x]]\n")
	names := []string{"pyproject.toml", "uv.lock", "PKG-INFO", "METADATA", "__init__.py", "_version.py", "v1.py"}
	f.Fuzz(func(t *testing.T, name, content string) {
		if !slices.Contains(names, name) {
			name = names[len(content)%len(names)]
		}
		once := normaliseVersion(name, []byte(content))
		twice := normaliseVersion(name, once)
		if !bytes.Equal(once, twice) {
			t.Fatalf("not idempotent for %s:\n%q\n%q", name, once, twice)
		}
		in, out := bytes.SplitAfter([]byte(content), []byte("\n")), bytes.SplitAfter(once, []byte("\n"))
		if len(in) != len(out) {
			t.Fatalf("line count changed: %d -> %d", len(in), len(out))
		}
		for i := range in {
			if !bytes.Equal(in[i], out[i]) && !bytes.Contains(out[i], []byte(versionPlaceholder)) {
				t.Fatalf("line %d changed without the placeholder: %q -> %q", i, in[i], out[i])
			}
		}
		if !versionBearing(name) && !bytes.Equal(once, []byte(content)) {
			t.Fatalf("%s is not version-bearing but changed", name)
		}
	})
}
