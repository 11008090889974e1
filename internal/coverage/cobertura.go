package coverage

import (
	"encoding/xml"
	"fmt"
	"path"
	"strings"
)

// Lines is the line coverage of a set of files: repository-relative path → line → hits.
// A line absent from a file's map is not code (a comment, a blank line, an excluded line),
// as coverage.py leaves it out of its report.
type Lines map[string]map[int]int

type coberturaXML struct {
	XMLName xml.Name `xml:"coverage"`
	Sources []string `xml:"sources>source"`
	Classes []struct {
		Filename string `xml:"filename,attr"`
		Lines    []struct {
			Number int `xml:"number,attr"`
			Hits   int `xml:"hits,attr"`
		} `xml:"lines>line"`
	} `xml:"packages>package>classes>class"`
}

// ParseCobertura reads a Cobertura coverage.xml. Its file names are relative to one of its
// <source> folders, which are absolute paths where the tests ran; root is the repository's
// path there (e.g. /src), so the result is keyed by repository-relative paths like a diff.
// Reports from several runs (one per Python version) merge with Merge.
func ParseCobertura(data []byte, root string) (Lines, error) {
	var c coberturaXML
	if err := xml.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("coverage.xml: not a Cobertura report: %w", err)
	}
	root = path.Clean("/" + strings.TrimPrefix(root, "/"))
	prefix := ""
	for _, s := range c.Sources {
		s = path.Clean(strings.TrimSpace(s))
		if rel, ok := relative(root, s); ok {
			prefix = rel
			break
		}
	}
	out := Lines{}
	for i, cl := range c.Classes {
		if cl.Filename == "" {
			return nil, fmt.Errorf("coverage.xml: class %d has no filename", i+1)
		}
		name := path.Clean(path.Join(prefix, cl.Filename))
		if strings.HasPrefix(name, "../") || path.IsAbs(name) {
			return nil, fmt.Errorf("coverage.xml: %s lies outside the repository %s", cl.Filename, root)
		}
		lines := out[name]
		if lines == nil {
			lines = map[int]int{}
			out[name] = lines
		}
		for _, l := range cl.Lines {
			if l.Number < 1 || l.Hits < 0 {
				return nil, fmt.Errorf("coverage.xml: %s: line number %d with %d hits", cl.Filename, l.Number, l.Hits)
			}
			lines[l.Number] += l.Hits
		}
	}
	return out, nil
}

// relative returns s relative to root when s is root or below it.
func relative(root, s string) (string, bool) {
	if s == root {
		return "", true
	}
	if root == "/" {
		return strings.TrimPrefix(s, "/"), path.IsAbs(s)
	}
	rel, ok := strings.CutPrefix(s, root+"/")
	return rel, ok
}

// Merge adds reports together: a line is covered when any run covered it, as Codecov
// merges the uploads of a commit.
func Merge(reports ...Lines) Lines {
	out := Lines{}
	for _, r := range reports {
		for file, lines := range r {
			if out[file] == nil {
				out[file] = map[int]int{}
			}
			for n, hits := range lines {
				out[file][n] += hits
			}
		}
	}
	return out
}
