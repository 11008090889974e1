package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
)

// ChangeRules map a pull request's changed paths to the integrations its
// validation must render and check.
type ChangeRules struct {
	// IntegrationsDir holds one folder per integration: a change under
	// IntegrationsDir/<name>/ checks <name>.
	IntegrationsDir string
	// UpstreamsFile is the file of upstream entries shared by all
	// integrations, shaped {"integrations": {"<name>": {…}}, …}.
	UpstreamsFile string
	// Shared are the paths every integration is generated from: an entry
	// ending in "/" matches everything under that folder, any other entry is
	// a path.Match pattern for a whole path ("pyproject.toml" is the root one).
	Shared []string
	// Generator is the model generator's own code, matched as Shared is: a change there
	// checks every integration, generated with the checkout's generator.
	Generator []string
}

// DefaultChangeRules fit the Cloudcoil repository as it is: integrations
// under models/, and what every model repository is generated from — the
// cookiecutter template, the root Makefile with its gen-repo-% rule, the
// model tools and the model workflows. The root pyproject.toml and uv.lock
// are Cloudcoil core's own project: generation installs the published
// Cloudcoil from PyPI, so a core change validates no model (in the real
// history 26 of 120 commits touch only core files and would otherwise have
// validated all 12 integrations), except a change to the generator itself,
// cloudcoil/codegen/, which validates every model with the checkout's
// generator.
func DefaultChangeRules() ChangeRules {
	return ChangeRules{
		IntegrationsDir: "models",
		UpstreamsFile:   "models/upstreams.json",
		Shared: []string{
			"cookiecutter/", "tools/", "Makefile", ".github/workflows/*model*",
		},
		Generator: []string{"cloudcoil/codegen/"},
	}
}

// GeneratorChanged applies DefaultChangeRules.GeneratorChanges.
func GeneratorChanged(changedPaths []string) bool {
	return DefaultChangeRules().GeneratorChanges(changedPaths)
}

// GeneratorChanges reports whether a changed path is the generator's own code (Generator):
// such a change comes with the template's in real pull requests (#64, #81, #85), so every
// integration is validated with the checkout's generator rather than the published one.
func (r ChangeRules) GeneratorChanges(changedPaths []string) bool {
	for _, p := range changedPaths {
		if matchesAny(strings.TrimPrefix(p, "./"), r.Generator) {
			return true
		}
	}
	return false
}

// ChangedIntegrations applies DefaultChangeRules.Changed.
func ChangedIntegrations(changedPaths []string, all []string) (names []string, everything bool) {
	return DefaultChangeRules().Changed(changedPaths, all)
}

// ChangedIntegrationsWithUpstreams applies DefaultChangeRules.ChangedWithUpstreams.
func ChangedIntegrationsWithUpstreams(changedPaths, all []string, oldUpstreams, newUpstreams []byte) (names []string, everything bool, err error) {
	return DefaultChangeRules().ChangedWithUpstreams(changedPaths, all, oldUpstreams, newUpstreams)
}

// Changed selects the integrations, among all, that changedPaths (relative,
// slash-separated, as git diff --name-only prints them) require checking.
// everything is true when a shared path changed; names then holds all of
// them. A change to UpstreamsFile also checks everything, since without both
// versions of the file there is no telling whose entry changed: callers that
// have them use ChangedWithUpstreams. Paths under no rule, and folders of
// integrations not in all (such as one being deleted), check nothing. Names
// are sorted and unique.
func (r ChangeRules) Changed(changedPaths []string, all []string) (names []string, everything bool) {
	names, everything, _ = r.changed(changedPaths, all, nil)
	return names, everything
}

// ChangedWithUpstreams is Changed with the old and new contents of
// UpstreamsFile (empty when the file is absent on that side): a change to it
// checks only the integrations whose entries differ, or everything when a
// shared part of the file (anything outside "integrations", such as the
// Cloudcoil requirement every package is generated with) differs.
func (r ChangeRules) ChangedWithUpstreams(changedPaths, all []string, oldUpstreams, newUpstreams []byte) (names []string, everything bool, err error) {
	return r.changed(changedPaths, all, func() ([]string, bool, error) {
		return diffUpstreams(oldUpstreams, newUpstreams)
	})
}

func (r ChangeRules) changed(changedPaths, all []string, upstreams func() ([]string, bool, error)) ([]string, bool, error) {
	known := map[string]bool{}
	for _, name := range all {
		known[name] = true
	}
	selected := map[string]bool{}
	everything := false
	for _, p := range changedPaths {
		p = strings.TrimPrefix(p, "./")
		switch {
		case p == "":
		case p == r.UpstreamsFile:
			if upstreams == nil {
				everything = true
				continue
			}
			names, shared, err := upstreams()
			if err != nil {
				return nil, false, fmt.Errorf("changed integrations: %s: %w", r.UpstreamsFile, err)
			}
			everything = everything || shared
			for _, name := range names {
				selected[name] = known[name]
			}
		case r.shared(p), matchesAny(p, r.Generator):
			everything = true
		default:
			rest, ok := strings.CutPrefix(p, r.IntegrationsDir+"/")
			if name, _, inFolder := strings.Cut(rest, "/"); ok && inFolder && known[name] {
				selected[name] = true
			}
		}
	}
	if everything {
		return sortedUnique(all), true, nil
	}
	var names []string
	for name, ok := range selected {
		if ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, false, nil
}

func (r ChangeRules) shared(p string) bool { return matchesAny(p, r.Shared) }

// matchesAny reports whether p is under a rule ending in "/" or matches a path.Match rule.
func matchesAny(p string, rules []string) bool {
	for _, rule := range rules {
		if dir, ok := strings.CutSuffix(rule, "/"); ok {
			if strings.HasPrefix(p, dir+"/") {
				return true
			}
		} else if ok, err := path.Match(rule, p); ok && err == nil {
			return true
		}
	}
	return false
}

func sortedUnique(s []string) []string {
	out := make([]string, 0, len(s))
	seen := map[string]bool{}
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// ChangedUpstreamEntries lists, sorted, the integrations whose entries under
// "integrations" differ between two versions of the upstreams file, an entry
// added or removed included. Entries compare as JSON values: formatting and
// key order do not count, the spelling of a number does. Empty input stands
// for an absent file. Other top-level fields are not entries and are not
// reported here; ChangeRules.ChangedWithUpstreams treats them as shared.
func ChangedUpstreamEntries(oldJSON, newJSON []byte) ([]string, error) {
	names, _, err := diffUpstreams(oldJSON, newJSON)
	return names, err
}

// upstreamsDoc splits the upstreams file into its integration entries and
// the rest.
type upstreamsDoc struct {
	integrations map[string]any
	shared       map[string]any
}

func parseUpstreamsDoc(data []byte) (upstreamsDoc, error) {
	doc := upstreamsDoc{integrations: map[string]any{}, shared: map[string]any{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return doc, nil
	}
	var top map[string]any
	if err := decodeJSON(data, &top); err != nil {
		return doc, err
	}
	if top == nil {
		return doc, fmt.Errorf("top level is not an object")
	}
	for k, v := range top {
		if k != "integrations" {
			doc.shared[k] = v
			continue
		}
		entries, ok := v.(map[string]any)
		if !ok {
			return doc, fmt.Errorf(`"integrations" is not an object`)
		}
		doc.integrations = entries
	}
	return doc, nil
}

func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // keep numbers as written, not rounded through float64
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the JSON value")
	}
	return nil
}

func diffUpstreams(oldJSON, newJSON []byte) (names []string, shared bool, err error) {
	before, err := parseUpstreamsDoc(oldJSON)
	if err != nil {
		return nil, false, fmt.Errorf("old upstreams: %w", err)
	}
	after, err := parseUpstreamsDoc(newJSON)
	if err != nil {
		return nil, false, fmt.Errorf("new upstreams: %w", err)
	}
	for name, v := range before.integrations {
		if w, ok := after.integrations[name]; !ok || !jsonEqual(v, w) {
			names = append(names, name)
		}
	}
	for name := range after.integrations {
		if _, ok := before.integrations[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, !jsonEqual(before.shared, after.shared), nil
}

// jsonEqual compares decoded JSON values. Numbers compare by spelling: "1.0"
// against "1" counts as a change, which only checks more; comparing by value
// would cost arbitrary-precision arithmetic on whatever a pull request holds.
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			w, ok := b[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	default: // json.Number, string, bool, nil
		return a == b
	}
}
