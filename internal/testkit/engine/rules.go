package engine

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Rules program what the double answers. Every condition of a rule must hold (empty ones
// hold always), and the rule registered last wins, so a test can override a shared
// baseline. A result, once computed, is cached like the engine's: set rules before the
// graph runs.

// ExecRule gives the outcome of the execs it matches. Unmatched execs exit 0 with no
// output, unless the engine is strict (StrictExecs): then they fail, and so does the test.
type ExecRule struct {
	ArgsContain string          // substring of the args joined by spaces
	Image       string          // base image address, exactly
	Match       func(Exec) bool // any other condition; it sees the exec before it runs
	Stdout      string
	Stderr      string
	ExitCode    int
	// Run, when set, computes the outcome instead of the fields above: a test can run the
	// real program behind a command (a helper binary built from this repository) with the
	// exec's arguments, to prove a graph end to end against local servers.
	Run func(Exec) (stdout, stderr string, exitCode int)
}

// ExportRule writes what an export produces: without one, an export is only recorded.
// Write receives the export's path; a test writes real bytes there (an OCI tarball of an
// image it made) so the code reading the export next runs for real. An error fails the
// export as the engine would.
type ExportRule struct {
	Kind          string // Container, Directory or File; "" matches any
	ChainContains string
	Write         func(path string) error
}

// FileRule gives the contents of a file read with File.contents. Path is the file's path
// in its root object ("/out/report.json" in a container, "go.mod" in a directory); a
// relative Path also matches as a suffix at a folder boundary.
type FileRule struct {
	Path          string
	ChainContains string // substring of the file's chain, e.g. an exec's args
	Contents      string
}

// DirRule gives the entries of a folder listed with Directory.entries.
type DirRule struct {
	Path          string // folder path as for FileRule; "" or "." is the directory itself
	ChainContains string
	Entries       []string
}

// FieldRule answers any other leaf: Value (which must fit the field's GraphQL type) or,
// when Err is set, a GraphQL error with that message, to inject a fault.
type FieldRule struct {
	Type          string // GraphQL type, e.g. "Container"
	Field         string // e.g. "publish"
	ChainContains string
	Value         any
	Err           string
}

// OnExec adds an exec rule.
func (e *Engine) OnExec(r ExecRule) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.execRules = append(e.execRules, r)
}

// ExpectExecs adds, for each command, a rule that answers exit 0 with no output to the
// execs whose args, joined by spaces, contain it: the commands a test of a whole flow
// expects to succeed, declared so that a strict engine fails on any other. Rules added
// later still override them.
func (e *Engine) ExpectExecs(cmds ...string) {
	e.t.Helper()
	for _, c := range cmds {
		if c == "" {
			// An empty command would match every exec and make strict mode lenient.
			e.t.Fatalf("engine double: ExpectExecs needs non-empty commands")
		}
		e.OnExec(ExecRule{ArgsContain: c})
	}
}

// OnFile adds a file-contents rule.
func (e *Engine) OnFile(r FileRule) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fileRules = append(e.fileRules, r)
}

// OnEntries adds a directory-entries rule.
func (e *Engine) OnEntries(r DirRule) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r.Entries = slices.Clone(r.Entries)
	e.dirRules = append(e.dirRules, r)
}

// OnField adds a rule for any leaf field.
func (e *Engine) OnField(r FieldRule) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.leafRules = append(e.leafRules, r)
}

// matchExec answers an exec with the newest rule that matches it; ok is false when none does.
func (e *Engine) matchExec(ex Exec) (res execResult, ok bool) {
	e.mu.Lock()
	rules := slices.Clone(e.execRules)
	e.mu.Unlock()
	joined := strings.Join(ex.Args, " ")
	for i := len(rules) - 1; i >= 0; i-- {
		r := rules[i]
		if r.ArgsContain != "" && !strings.Contains(joined, r.ArgsContain) {
			continue
		}
		if r.Image != "" && r.Image != ex.Image {
			continue
		}
		if r.Match != nil && !r.Match(ex) {
			continue
		}
		if r.Run != nil {
			stdout, stderr, code := r.Run(ex)
			return execResult{stdout: stdout, stderr: stderr, exitCode: code}, true
		}
		return execResult{stdout: r.Stdout, stderr: r.Stderr, exitCode: r.ExitCode}, true
	}
	return execResult{}, false
}

// OnExport adds an export rule.
func (e *Engine) OnExport(r ExportRule) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.exportRules = append(e.exportRules, r)
}

// runExport applies the newest matching export rule, if any.
func (e *Engine) runExport(kind, p, chainText string) error {
	e.mu.Lock()
	rules := slices.Clone(e.exportRules)
	e.mu.Unlock()
	for i := len(rules) - 1; i >= 0; i-- {
		r := rules[i]
		if (r.Kind == "" || r.Kind == kind) && strings.Contains(chainText, r.ChainContains) {
			if err := r.Write(p); err != nil {
				return fmt.Errorf("export to %s: %w", p, err)
			}
			return nil
		}
	}
	return nil
}

// WriteExport writes to path what an export of kind whose chain is chainText produces, by
// the newest matching export rule, for a test whose code reads a container as a file
// (Container.asTarball mounted into an exec) rather than exporting it. ok is false when no
// rule matches.
func (e *Engine) WriteExport(kind, path, chainText string) (ok bool, err error) {
	e.mu.Lock()
	rules := slices.Clone(e.exportRules)
	e.mu.Unlock()
	for i := len(rules) - 1; i >= 0; i-- {
		r := rules[i]
		if (r.Kind == "" || r.Kind == kind) && strings.Contains(chainText, r.ChainContains) {
			return true, r.Write(path)
		}
	}
	return false, nil
}

func (e *Engine) matchFile(p, chainText string) (string, bool) {
	e.mu.Lock()
	rules := slices.Clone(e.fileRules)
	e.mu.Unlock()
	for i := len(rules) - 1; i >= 0; i-- {
		r := rules[i]
		if pathMatches(r.Path, p) && strings.Contains(chainText, r.ChainContains) {
			return r.Contents, true
		}
	}
	return "", false
}

// matchEntries finds the entries of folder p; root says the query listed the directory
// object itself rather than a folder in it.
func (e *Engine) matchEntries(p string, root bool, chainText string) ([]string, bool) {
	e.mu.Lock()
	rules := slices.Clone(e.dirRules)
	e.mu.Unlock()
	for i := len(rules) - 1; i >= 0; i-- {
		r := rules[i]
		own := r.Path == "" || r.Path == "."
		if ((own && root) || (!own && pathMatches(r.Path, p))) && strings.Contains(chainText, r.ChainContains) {
			return slices.Clone(r.Entries), true
		}
	}
	return nil, false
}

func (e *Engine) matchField(typ, field, chainText string) (any, bool, error) {
	e.mu.Lock()
	rules := slices.Clone(e.leafRules)
	e.mu.Unlock()
	for i := len(rules) - 1; i >= 0; i-- {
		r := rules[i]
		if r.Type == typ && r.Field == field && strings.Contains(chainText, r.ChainContains) {
			if r.Err != "" {
				return nil, true, errors.New(r.Err)
			}
			return r.Value, true, nil
		}
	}
	return nil, false, nil
}

func pathMatches(rule, p string) bool {
	norm := func(s string) string {
		if strings.HasPrefix(s, "/") {
			return path.Clean(s)
		}
		return rel(s)
	}
	rule, p = norm(rule), norm(p)
	if rule == p {
		return true
	}
	return !strings.HasPrefix(rule, "/") && rule != "" && strings.HasSuffix(p, "/"+rule)
}
