//go:build realengine

package realengine

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pythonRootfsEnv names the toolchain image's root filesystem (.ci/python-toolchain), in
// which the uv stand-in's own behaviour is checked without an engine: each case runs in a
// chroot of an overlay on it, so nothing is written to the cached tree.
const pythonRootfsEnv = "SHIPYARD_PYTHON_ROOTFS"

// inToolchain runs script with sh in a copy of project at /proj, in the toolchain's root
// filesystem with the checkout's stand-in as uv and uvx, and returns the combined output
// and the project folder as the script left it.
func inToolchain(t *testing.T, project map[string]string, script string) (string, string, error) {
	t.Helper()
	rootfs := os.Getenv(pythonRootfsEnv)
	if rootfs == "" {
		t.Fatalf("%s is unset: .ci/realengine builds the toolchain with .ci/python-toolchain", pythonRootfsEnv)
	}
	// Not t.TempDir: the test's name may hold a comma, which ends an overlay option.
	w, err := os.MkdirTemp("", "uvstandin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(w) })
	upper := filepath.Join(w, "upper")
	standin, err := os.ReadFile(filepath.Join(repoRoot, "internal", "realengine", "uvstandin", "uv"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"usr/local/bin/uv": string(standin), "usr/local/bin/uvx": string(standin)}
	for p, c := range project {
		files["proj/"+p] = c
	}
	for p, c := range files {
		target := filepath.Join(upper, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, []byte(c), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"work", "merged", "upper/proj", "upper/out"} {
		if err := os.MkdirAll(filepath.Join(w, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A private mount namespace: the overlay and /proc vanish with the process.
	inner := `set -e
w=$1
mount -t overlay overlay -o "lowerdir=$2,upperdir=$w/upper,workdir=$w/work" "$w/merged"
mount -t proc proc "$w/merged/proc"
exec chroot "$w/merged" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
  UV_PROJECT_ENVIRONMENT=/venv /bin/sh -c "cd /proj && $3"`
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", inner, "_", w, rootfs, script)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), filepath.Join(upper, "proj"), err
}

// demoProject is a small hatchling project that requires what the image holds.
func demoProject(deps string, extra map[string]string) map[string]string {
	files := map[string]string{
		"pyproject.toml": "[project]\nname = \"demo\"\nversion = \"0.1.0\"\nrequires-python = \">=3.10\"\n" +
			"dependencies = [" + deps + "]\n\n[build-system]\nrequires = [\"hatchling\"]\nbuild-backend = \"hatchling.build\"\n",
		"demo/__init__.py": "VALUE = 1\n",
	}
	for p, c := range extra {
		files[p] = c
	}
	return files
}

// The stand-in does what its README says, in the image it is made for: each behaviour that
// Shipyard's graphs or Cloudcoil's template rely on, and each refusal that keeps it from
// pretending to resolve or download.
func TestUVStandIn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		project map[string]string
		script  string
		fails   bool
		output  []string
		files   map[string][]string // file of the project (or /out) → what it must contain
	}{{
		name:    "frozen needs a lock",
		project: demoProject(`"pyyaml"`, nil),
		script:  "uv sync --frozen",
		fails:   true,
		output:  []string{"Unable to find lockfile at `uv.lock`"},
	}, {
		name:    "lock then sync and run the project installed",
		project: demoProject(`"pyyaml>=6"`, nil),
		script: `uv lock && uv sync --frozen && uv run --frozen python -c 'import demo, yaml, sys; print("prefix", sys.prefix, demo.VALUE)'
python3 -c 'import importlib.metadata as m; print("have pyyaml", m.version("pyyaml"))'`,
		output: []string{"prefix /venv 1", "have pyyaml 6."},
		files: map[string][]string{"uv.lock": {"# Written by Shipyard's uv stand-in", `name = "pyyaml"`, `version = "6.`,
			`source = { editable = "." }`, `{ name = "pyyaml", specifier = ">=6" }`}},
	}, {
		name:    "a locked version the image lacks",
		project: demoProject(`"pyyaml"`, nil),
		script:  `uv lock && sed -i 's/^version = "6\..*"/version = "5.4.1"/' uv.lock && uv sync --frozen`,
		fails:   true,
		output:  []string{"pyyaml 5.4.1 is locked but the image has 6.", "installs nothing"},
	}, {
		name:    "a requirement the image lacks",
		project: demoProject(`"not-in-debian-at-all>=1"`, nil),
		script:  "uv lock",
		fails:   true,
		output:  []string{"not-in-debian-at-all>=1 is not installed in the image", "downloads nothing"},
	}, {
		name: "an extra's requirement the image lacks is named and left out",
		project: demoProject(`"pyyaml"`, map[string]string{"pyproject.toml": "[project]\nname = \"demo\"\nversion = \"0.1.0\"\n" +
			"dependencies = [\"pyyaml\"]\n[project.optional-dependencies]\ndocs = [\"mkdocstrings>=0.24\", \"mkdocs\"]\n"}),
		script: "uv lock && uv sync --frozen --all-extras",
		output: []string{"left out of uv.lock: mkdocstrings>=0.24"},
		files:  map[string][]string{"uv.lock": {`name = "mkdocs"`, `source = { virtual = "." }`}},
	}, {
		name: "an extra's requirement at a version the image refuses is named and left out",
		project: demoProject(`"filelock"`, map[string]string{"pyproject.toml": "[project]\nname = \"demo\"\nversion = \"0.1.0\"\n" +
			"dependencies = [\"filelock\"]\n[project.optional-dependencies]\nold = [\"pyyaml<5\"]\n"}),
		script: `uv lock && ! grep -q '^name = "pyyaml"' uv.lock`,
		output: []string{"left out of uv.lock: pyyaml<5 (the image has 6."},
		files:  map[string][]string{"uv.lock": {`name = "filelock"`}},
	}, {
		// datamodel-code-generator 0.26.4 requires inflect<6.0; Debian 13 runs it with
		// inflect 7: the lock records what runs, and says so.
		name:    "a dependency's own requirement Debian satisfies otherwise is locked as installed",
		project: demoProject(`"datamodel-code-generator"`, nil),
		script:  "uv lock && uv sync --frozen",
		output:  []string{"the image's inflect 7.", "locked as installed"},
		files:   map[string][]string{"uv.lock": {`name = "datamodel-code-generator"`, `version = "0.26.4"`, `name = "inflect"`, `version = "7.`}},
	}, {
		name:    "a project dependency at a version the image refuses fails the lock",
		project: demoProject(`"pyyaml<5"`, nil),
		script:  "uv lock",
		fails:   true,
		output:  []string{"pyyaml<5 is not satisfied: the image has pyyaml 6."},
	}, {
		name:    "uv add keeps an existing specifier and bounds a new requirement",
		project: demoProject(`"pyyaml>=5.0"`, nil),
		script:  "uv add pyyaml -U && uv add filelock",
		files:   map[string][]string{"pyproject.toml": {`"pyyaml>=5.0"`, `"filelock>=3.18`}, "uv.lock": {`name = "filelock"`}},
	}, {
		name:    "a lock made for other requirements is stale",
		project: demoProject(`"pyyaml"`, nil),
		script:  `uv lock && sed -i 's/"pyyaml"/"pyyaml>=6"/' pyproject.toml && uv lock --check`,
		fails:   true,
		output:  []string{"The lockfile at `uv.lock` needs to be updated", "pyyaml>=6"},
	}, {
		name:    "sync --locked refuses a stale lock",
		project: demoProject(`"pyyaml"`, nil),
		script:  `uv lock && sed -i 's/"pyyaml"/"pyyaml", "filelock"/' pyproject.toml && uv sync --locked`,
		fails:   true,
		output:  []string{"needs to be updated", "filelock"},
	}, {
		name:    "run --with what the image lacks",
		project: demoProject(`"pyyaml"`, nil),
		script:  "uv run --with cffconvert==2.0.0 true",
		fails:   true,
		output:  []string{"cffconvert==2.0.0: not installed"},
	}, {
		// validate-models runs a changed generator this way: the checkout's project layered
		// over the locked environment for one command, which keeps the lock and the
		// environment as they were.
		name: "run --with-editable layers a project over the environment for one command",
		// The layer holds a package the environment has installed (as the checkout's
		// cloudcoil over the locked release): the layer's wins.
		project: demoProject(`"pyyaml"`, map[string]string{
			"overlay/pyproject.toml":   "[project]\nname = \"pyyaml\"\nversion = \"7.0.dev0\"\n",
			"overlay/yaml/__init__.py": "LAYER = \"the checkout's\"\n",
		}),
		script: `uv lock && uv sync --frozen && cp uv.lock /tmp/before
uv run --frozen --with-editable /proj/overlay python -c 'import yaml; print("layered:", getattr(yaml, "LAYER", "installed"))'
uv run --frozen python -c 'import yaml; print("alone:", getattr(yaml, "LAYER", "installed"))'
cmp uv.lock /tmp/before && echo "lock unchanged"
uv run --frozen --with-editable /proj/nothing true`,
		fails:  true,
		output: []string{"layered: the checkout's", "alone: installed", "lock unchanged", "--with-editable /proj/nothing: no pyproject.toml there"},
	}, {
		name:    "uvx runs an installed tool and refuses another",
		project: demoProject(`"pyyaml"`, nil),
		script:  "uvx ruff --version && uvx cookiecutter --version && ! uvx --from cffconvert==2.0.0 cffconvert --version",
		output:  []string{"ruff 0.", "Cookiecutter 2.6", "cffconvert==2.0.0: not installed"},
	}, {
		name:    "build with the project's backend",
		project: demoProject(`"pyyaml"`, nil),
		script:  "uv build --out-dir /out && ls /out",
		output:  []string{"demo-0.1.0-py3-none-any.whl", "demo-0.1.0.tar.gz"},
	}, {
		name:    "what uv does beyond the stand-in",
		project: demoProject(`"pyyaml"`, nil),
		script:  "uv pip install pyyaml",
		fails:   true,
		output:  []string{"uv pip is not part of the stand-in"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, proj, err := inToolchain(t, tc.project, tc.script)
			if (err != nil) != tc.fails {
				t.Fatalf("error %v, want failure %v:\n%s", err, tc.fails, out)
			}
			mustContain(t, "output", out, tc.output...)
			for f, want := range tc.files {
				b, err := os.ReadFile(filepath.Join(proj, f))
				if err != nil {
					t.Fatalf("%s: %v\n%s", f, err, out)
				}
				mustContain(t, f, string(b), want...)
			}
			if tc.fails && strings.Contains(out, "Traceback") {
				t.Errorf("the stand-in failed with a traceback, not an error it names:\n%s", out)
			}
		})
	}
}
