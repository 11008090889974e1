package trivy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// Suppression is how an accepted finding is marked in SARIF 2.1.0 (§3.35): code scanning
// shows a result with a suppression as dismissed instead of open. The acceptance lives in
// .trivyignore.yaml, outside the scanned artifact, hence kind "external".
type Suppression struct {
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Justification string `json:"justification,omitempty"`
}

// SuppressAccepted marks every result of a Trivy SARIF log that an ignore entry in force
// accepts (ignored, from Evaluate over the same scan) with an external, accepted suppression
// whose justification is the entry's statement. The rest of the log is kept as it was.
// It returns the number of results it marked.
//
// A result is one package's finding: Trivy writes its rule id, and "Package: <name>" and
// "Installed Version: <version>" lines in its message; its location is the image (for OS
// packages) or the file the package was found in.
func SuppressAccepted(sarif []byte, ignored []IgnoredFinding) ([]byte, int, error) {
	if _, err := ParseSARIF(sarif); err != nil {
		return nil, 0, err
	}
	dec := json.NewDecoder(bytes.NewReader(sarif))
	dec.UseNumber() // keeps numbers (security-severity, regions) exactly as Trivy wrote them
	var log map[string]any
	if err := dec.Decode(&log); err != nil {
		return nil, 0, fmt.Errorf("reading the SARIF log: %w", err)
	}
	marked := 0
	runs, _ := log["runs"].([]any)
	for _, r := range runs {
		run, _ := r.(map[string]any)
		results, _ := run["results"].([]any)
		for _, x := range results {
			res, _ := x.(map[string]any)
			f, ok := acceptedFinding(res, ignored)
			if !ok {
				continue
			}
			res["suppressions"] = []Suppression{{Kind: "external", Status: "accepted", Justification: f.Statement}}
			marked++
		}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // Trivy's markdown help has | and < that need no escaping
	enc.SetIndent("", "  ")
	if err := enc.Encode(log); err != nil {
		return nil, 0, fmt.Errorf("writing the SARIF log: %w", err)
	}
	return out.Bytes(), marked, nil
}

// acceptedFinding finds the ignored finding a SARIF result reports, if any.
func acceptedFinding(res map[string]any, ignored []IgnoredFinding) (IgnoredFinding, bool) {
	rule, _ := res["ruleId"].(string)
	msg, _ := res["message"].(map[string]any)
	text, _ := msg["text"].(string)
	pkg, installed := messageField(text, "Package"), messageField(text, "Installed Version")
	if rule == "" || pkg == "" {
		return IgnoredFinding{}, false
	}
	uris := resultURIs(res)
	for _, f := range ignored {
		if f.ID != rule || f.Package != pkg || (installed != "" && f.Installed != installed) {
			continue
		}
		if len(uris) == 0 {
			return f, true
		}
		for _, u := range uris {
			if locates(u, f.Finding) {
				return f, true
			}
		}
	}
	return IgnoredFinding{}, false
}

// messageField reads a "Name: value" line of Trivy's result message.
func messageField(text, name string) string {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, name+": "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func resultURIs(res map[string]any) []string {
	var out []string
	locs, _ := res["locations"].([]any)
	for _, l := range locs {
		loc, _ := l.(map[string]any)
		phys, _ := loc["physicalLocation"].(map[string]any)
		art, _ := phys["artifactLocation"].(map[string]any)
		if u, _ := art["uri"].(string); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// locates reports whether a SARIF location URI names the finding's place. For OS packages
// Trivy writes the target without its " (<os> <version>)" suffix and, when that is an image
// reference, only the reference's repository, the registry and tag or digest dropped
// ("10.87.0.1:5000/org/img@sha256:…" → "org/img", "alpine:3" → "library/alpine"; ToPathUri
// in Trivy v0.74.0's pkg/report/sarif.go); for language packages, the file (the target, or
// the package path inside an image).
func locates(uri string, f Finding) bool {
	target := f.Target
	if i := strings.LastIndex(target, " ("); i > 0 && strings.HasSuffix(target, ")") {
		target = target[:i]
	}
	if uri == f.Target || uri == target || (f.PkgPath != "" && uri == f.PkgPath) {
		return true
	}
	repo, ok := repositoryPath(target)
	return ok && uri == repo
}

// repositoryPath is the repository path of an image reference, read as Trivy reads a scan
// target for its SARIF locations (go-containerregistry's name.ParseReference, not strict,
// then the repository without its registry): the digest and the tag dropped, the registry
// dropped when the first part names one (it has a dot or a colon), and a one-part name on
// Docker Hub under library/. ok is false when the target is no reference (characters a
// repository cannot have, a bad tag or digest), as the parser refuses it.
func repositoryPath(ref string) (repo string, ok bool) {
	if base, digest, found := strings.Cut(ref, "@"); found {
		if !validDigest(digest) {
			return "", false
		}
		ref = base
	}
	if i := strings.LastIndexByte(ref, ':'); i > strings.LastIndexByte(ref, '/') {
		if !validTag(ref[i+1:]) {
			return "", false
		}
		ref = ref[:i]
	}
	registry := ""
	if first, rest, found := strings.Cut(ref, "/"); found && strings.ContainsAny(first, ".:") {
		// A registry is a URI authority, host[:port], as the parser checks it.
		if u, err := url.Parse("//" + first); err != nil || u.Host != first {
			return "", false
		}
		registry, ref = first, rest
	}
	if len(ref) < 2 || len(ref) > 255 || strings.Trim(ref, "abcdefghijklmnopqrstuvwxyz0123456789_-./") != "" {
		return "", false
	}
	if (registry == "" || registry == "docker.io" || registry == "index.docker.io") && !strings.Contains(ref, "/") {
		ref = "library/" + ref
	}
	return ref, true
}

func validTag(tag string) bool {
	return tag != "" && len(tag) <= 128 && strings.Trim(tag, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == ""
}

// validDigest is the digest form the parser accepts: sha256 and 64 hex characters.
func validDigest(d string) bool {
	hex, ok := strings.CutPrefix(d, "sha256:")
	return ok && len(hex) == 64 && strings.Trim(hex, "0123456789abcdef") == ""
}
