package models

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"dagger/shipyard/internal/pyproject"
)

// EntryPoint is one entry of a wheel's entry_points.txt: name = module[:attribute].
type EntryPoint struct {
	Group, Name, Module string
	Line                int
}

// ParseEntryPoints reads entry_points.txt (an INI file: [group] headers, then
// name = value lines). A malformed line is an error naming it.
func ParseEntryPoints(data []byte) ([]EntryPoint, error) {
	var out []EntryPoint
	group := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[':
			if !strings.HasSuffix(line, "]") {
				return nil, fmt.Errorf("entry_points.txt:%d: section header %q has no closing ]", n, line)
			}
			group = strings.TrimSpace(line[1 : len(line)-1])
		default:
			name, value, ok := strings.Cut(line, "=")
			if !ok || group == "" || strings.TrimSpace(name) == "" {
				return nil, fmt.Errorf("entry_points.txt:%d: %q is not name = module[:attribute] in a [group]", n, line)
			}
			module, _, _ := strings.Cut(strings.TrimSpace(value), ":")
			out = append(out, EntryPoint{Group: group, Name: strings.TrimSpace(name), Module: strings.TrimSpace(module), Line: n})
		}
	}
	return out, sc.Err()
}

// codegenNamespaces are the namespace values of pyproject.toml's
// [[tool.cloudcoil.codegen.models]] entries: the import paths the generator
// writes models to.
func codegenNamespaces(checkout fs.FS) ([]string, error) {
	data, err := fs.ReadFile(checkout, "pyproject.toml")
	if err != nil {
		return nil, err
	}
	doc, err := pyproject.Parse("pyproject.toml", data)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, v := range doc.StringValues("tool.cloudcoil.codegen.models.namespace") {
		if v.Entry >= 0 {
			out = append(out, v.Text)
		}
	}
	return out, nil
}

// resourceClass matches a module-level class deriving from Cloudcoil's
// Resource, as the generator writes it: `class Certificate(Resource):`.
var resourceClass = regexp.MustCompile(`(?m)^class\s+\w+\s*\(([^)]*)\)\s*:`)
var resourceBase = regexp.MustCompile(`(^|[\s,.])Resource\s*(,|$|\[)`)

// definesResource reports whether Python source defines a resource model.
func definesResource(src []byte) bool {
	for _, m := range resourceClass.FindAllSubmatch(src, -1) {
		if resourceBase.Match(bytes.TrimSpace(m[1])) {
			return true
		}
	}
	return false
}

// moduleFiles are the wheel's .py files of the module at an import path: the
// package's files, recursively (Cloudcoil walks packages), or the one module
// file.
func moduleFiles(files map[string]ArtifactFile, importPath string) []string {
	dir := strings.ReplaceAll(importPath, ".", "/")
	var out []string
	if _, ok := files[dir+".py"]; ok {
		out = append(out, dir+".py")
	}
	if _, ok := files[dir+"/__init__.py"]; ok {
		for p := range files {
			if strings.HasPrefix(p, dir+"/") && strings.HasSuffix(p, ".py") {
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}

// checkDiscovery applies the discovery rules of ArtifactRules to a wheel. The
// contents of the wheel's modules are the checkout's (compareFiles holds them
// equal), so the resource check reads the checkout.
func (r ArtifactRules) checkDiscovery(add addFunc, checkout fs.FS, wheel Artifact) {
	if r.EntryPointGroup == "" {
		return
	}
	namespaces, err := codegenNamespaces(checkout)
	if err != nil {
		add("pyproject.toml", "codegen settings: %v", err)
		return
	}
	if len(namespaces) == 0 {
		add("pyproject.toml", "no [[tool.cloudcoil.codegen.models]] namespace: the generator's settings name the package the models are written to")
		return
	}
	epPath := wheel.Root + "/entry_points.txt"
	var eps []EntryPoint
	if wheel.EntryPoints != nil {
		if eps, err = ParseEntryPoints(wheel.EntryPoints); err != nil {
			add(epPath, "wheel: %v", err)
			return
		}
	}
	declared := map[string]bool{}
	for _, ep := range eps {
		if ep.Group != r.EntryPointGroup {
			continue
		}
		declared[ep.Module] = true
		if len(moduleFiles(wheel.Files, ep.Module)) == 0 {
			add(epPath, "wheel: entry point %s = %s (line %d) resolves to no module in the wheel, so Cloudcoil cannot import it", ep.Name, ep.Module, ep.Line)
		}
	}
	for _, ns := range namespaces {
		scanned := strings.HasPrefix(ns, r.NamespaceRoot+".") && !strings.Contains(strings.TrimPrefix(ns, r.NamespaceRoot+"."), ".")
		if !declared[ns] && !scanned {
			add(epPath, "wheel: codegen namespace %s is neither a [%s] entry point nor a package directly under %s, so Cloudcoil never finds its models; declare it in pyproject.toml: [project.entry-points.%s] then <name> = \"%s\"",
				ns, r.EntryPointGroup, r.NamespaceRoot, r.EntryPointGroup, ns)
			continue
		}
		files := moduleFiles(wheel.Files, ns)
		if len(files) == 0 {
			add(strings.ReplaceAll(ns, ".", "/"), "wheel: codegen namespace %s is not a module in the wheel", ns)
			continue
		}
		found := false
		for _, p := range files {
			data, err := fs.ReadFile(checkout, path.Join(r.ImportRoot, p))
			if err == nil && definesResource(data) {
				found = true
				break
			}
		}
		if !found {
			add(strings.ReplaceAll(ns, ".", "/"), "resource models are empty: no module of %s in the wheel defines a class deriving from Resource, so Cloudcoil resolves none of its kinds", ns)
		}
	}
}
