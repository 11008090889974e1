package trivy

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// purl is the part of a package URL that Trivy's ignore matching compares.
type purl struct {
	Type, Namespace, Name, Version, Subpath string
	Qualifiers                              map[string]string
}

// parsePURL reads "pkg:type/namespace/name@version?qualifiers#subpath" as packageurl-go does
// for the parts matching needs. Type normalisation beyond lower case is left out: both sides of
// a match go through this function, and Trivy writes the purls in its reports canonically.
func parsePURL(s string) (purl, error) {
	rest, ok := cutPrefixFold(s, "pkg:")
	if !ok {
		return purl{}, fmt.Errorf("purl %q: does not start with \"pkg:\"", s)
	}
	var p purl
	rest, sub, _ := strings.Cut(rest, "#")
	p.Subpath = strings.Trim(sub, "/")
	rest, query, hasQuery := strings.Cut(rest, "?")
	if hasQuery && query != "" {
		p.Qualifiers = map[string]string{}
		for kv := range strings.SplitSeq(query, "&") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return purl{}, fmt.Errorf("purl %q: qualifier %q is not key=value", s, kv)
			}
			dv, err := url.PathUnescape(v)
			if err != nil {
				return purl{}, fmt.Errorf("purl %q: qualifier %q: %w", s, k, err)
			}
			p.Qualifiers[strings.ToLower(k)] = dv
		}
	}
	rest = strings.Trim(rest, "/")
	typ, path, ok := strings.Cut(rest, "/")
	if !ok || typ == "" {
		return purl{}, fmt.Errorf("purl %q: needs a type and a name, as in pkg:deb/debian/openssl", s)
	}
	p.Type = strings.ToLower(typ)
	if i := strings.LastIndex(path, "@"); i >= 0 {
		v, err := url.PathUnescape(path[i+1:])
		if err != nil {
			return purl{}, fmt.Errorf("purl %q: version: %w", s, err)
		}
		p.Version, path = v, path[:i]
	}
	ns, name := "", path
	if i := strings.LastIndex(path, "/"); i >= 0 {
		ns, name = path[:i], path[i+1:]
	}
	var err error
	if p.Name, err = url.PathUnescape(name); err != nil {
		return purl{}, fmt.Errorf("purl %q: name: %w", s, err)
	}
	if p.Name == "" {
		return purl{}, fmt.Errorf("purl %q: %w", s, errNoName)
	}
	if p.Namespace, err = url.PathUnescape(ns); err != nil {
		return purl{}, fmt.Errorf("purl %q: namespace: %w", s, err)
	}
	return p, nil
}

var errNoName = errors.New("has no package name")

// matches reports whether the finding's purl satisfies the constraint p, as Trivy's
// PackageURL.Match: version, subpath and qualifiers count only when the constraint sets them.
func (p purl) matches(target purl) bool {
	switch {
	case p.Type != target.Type, p.Namespace != target.Namespace, p.Name != target.Name:
		return false
	case p.Version != "" && p.Version != target.Version:
		return false
	case p.Subpath != "" && p.Subpath != target.Subpath:
		return false
	}
	for k, v := range p.Qualifiers {
		if tv, ok := target.Qualifiers[k]; !ok || tv != v {
			return false
		}
	}
	return true
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}
