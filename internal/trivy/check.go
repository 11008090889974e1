package trivy

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"
)

// Problem is one thing wrong in an ignore file. Line is 1-based, or 0 when the YAML parser
// gives no position. Warning marks a problem that does not fail the check yet (an entry that
// expires soon).
type Problem struct {
	Line    int
	Message string
	Warning bool
}

func (p Problem) String() string {
	kind := "error"
	if p.Warning {
		kind = "warning"
	}
	return fmt.Sprintf("line %d: %s: %s", p.Line, kind, p.Message)
}

// ExpiryWarning is how long before its expiry an entry is reported as a warning, so that
// someone renews or fixes it before the scan starts failing.
const ExpiryWarning = 14 * 24 * time.Hour

var (
	sections  = []string{"vulnerabilities", "misconfigurations", "secrets", "licenses"}
	entryKeys = []string{"id", "statement", "expired_at", "paths", "purls"}
	// synonyms are keys people reach for that Trivy silently ignores.
	synonyms = map[string]string{"reason": "statement", "justification": "statement", "comment": "statement",
		"expires": "expired_at", "expiry": "expired_at", "expiration": "expired_at", "until": "expired_at"}
	datePattern = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	linePattern = regexp.MustCompile(`line ([0-9]+)`)
)

// CheckIgnoreFile checks tesk-core's .trivyignore.yaml: Trivy can load it, it has only the keys
// Trivy reads (a misspelt key is silently ignored by Trivy, and a misspelt expired_at never
// expires), and every entry has an id, a statement and an expired_at date that has not passed.
// Entries expiring within ExpiryWarning of now are warnings. Problems come in file order.
func CheckIgnoreFile(content []byte, now time.Time) []Problem {
	problems, _ := check(content, now)
	return problems
}

// check also reports whether Trivy itself refuses the file, which the tests compare with
// ParseIgnoreFile.
func check(content []byte, now time.Time) ([]Problem, bool) {
	c := &checker{now: now}
	c.file(content)
	if !c.rejected {
		// A safety net for refusals the walk does not name one by one.
		if _, err := ParseIgnoreFile(content); err != nil {
			c.reject(lineOf(err.Error()), "%v", err)
		}
	}
	slices.SortStableFunc(c.problems, func(a, b Problem) int { return a.Line - b.Line })
	return c.problems, c.rejected
}

type checker struct {
	now      time.Time
	problems []Problem
	rejected bool
}

func (c *checker) add(line int, warning bool, format string, args ...any) {
	c.problems = append(c.problems, Problem{Line: line, Message: fmt.Sprintf(format, args...), Warning: warning})
}

// reject records a problem that makes Trivy refuse the whole file, so the scan errors out.
func (c *checker) reject(line int, format string, args ...any) {
	c.rejected = true
	c.add(line, false, "Trivy cannot load the file: "+format, args...)
}

func (c *checker) file(content []byte) {
	var doc yaml.Node
	if err := yaml.Unmarshal(content, &doc); err != nil {
		c.reject(lineOf(err.Error()), "invalid YAML (%v): fix the syntax; indent with spaces", err)
		return
	}
	if len(doc.Content) == 0 {
		return // an empty file accepts nothing
	}
	root := resolve(doc.Content[0])
	if isNull(root) {
		return
	}
	if root.Kind != yaml.MappingNode {
		c.reject(root.Line, "the top level is %s; make it a mapping with the keys %s", describe(root), strings.Join(sections, ", "))
		return
	}
	pairs(c, root, func(k, v *yaml.Node) {
		switch {
		case k.Value == "<<":
			c.add(k.Line, false, "merge key \"<<\": write the sections out, so that this check and reviewers see every entry")
		case !slices.Contains(sections, k.Value):
			c.add(k.Line, false, "unknown top-level key %s: Trivy ignores it, so nothing under it is ignored; %s",
				short(k.Value), suggest(k.Value, sections, "use "+strings.Join(sections, ", ")))
		default:
			c.section(k.Value, v)
		}
	})
}

// pairs visits a mapping's key/value pairs, rejecting a repeated key as yaml.v3 does when
// Trivy decodes the file.
func pairs(c *checker, m *yaml.Node, visit func(k, v *yaml.Node)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := resolve(m.Content[i]), m.Content[i+1]
		if first, dup := seen[k.Value]; dup && k.Kind == yaml.ScalarNode {
			c.reject(k.Line, "key %s repeats the one at line %d; keep one", short(k.Value), first)
			continue
		}
		seen[k.Value] = k.Line
		visit(k, v)
	}
}

func (c *checker) section(name string, n *yaml.Node) {
	n = resolve(n)
	if isNull(n) {
		return
	}
	if n.Kind != yaml.SequenceNode {
		c.reject(n.Line, "%s is %s; make it a list of entries (\"- id: ...\")", name, describe(n))
		return
	}
	for _, item := range n.Content {
		c.entry(name, item)
	}
}

func (c *checker) entry(section string, n *yaml.Node) {
	line := n.Line
	n = resolve(n)
	if isNull(n) {
		c.add(line, false, "%s: empty entry: give it an id, a statement and an expired_at, or delete the \"-\"", section)
		return
	}
	if n.Kind != yaml.MappingNode {
		c.reject(line, "%s: an entry is %s; make it a mapping with id, statement and expired_at", section, describe(n))
		return
	}
	label := fmt.Sprintf("%s entry at line %d", section, line)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "id" {
			if id := strings.TrimSpace(resolve(n.Content[i+1]).Value); id != "" {
				label = fmt.Sprintf("%s entry %s", section, short(id))
			}
		}
	}
	present := map[string]bool{}
	pairs(c, n, func(k, v *yaml.Node) {
		key := k.Value
		vline := v.Line
		v = resolve(v)
		switch key {
		case "<<":
			c.add(k.Line, false, "%s: merge key \"<<\": write the fields out, so that this check and reviewers see them", label)
			return
		case "id", "statement":
			var s string
			if err := v.Decode(&s); err != nil {
				c.reject(vline, "%s: %s is %s; make it text", label, key, describe(v))
				return
			}
			present[key] = strings.TrimSpace(s) != ""
		case "expired_at":
			present[key] = !isNull(v)
			if present[key] {
				c.expiry(label, v, vline)
			}
		case "paths", "purls":
			var list []string
			if err := v.Decode(&list); err != nil {
				c.reject(vline, "%s: %s is %s; make it a list of strings", label, key, describe(v))
				return
			}
			for _, s := range list {
				if key == "paths" && !doublestar.ValidatePattern(s) {
					c.reject(vline, "%s: path %q is not a valid glob pattern", label, s)
				}
				if key == "purls" {
					if _, err := parsePURL(s); err != nil {
						c.reject(vline, "%s: %v; write a package URL such as pkg:deb/debian/openssl", label, err)
					}
				}
			}
			if key == "purls" && section != "vulnerabilities" {
				c.add(k.Line, false, "%s: Trivy uses purls only for vulnerabilities, so here the entry applies to every package; remove purls or use paths", label)
			}
		default:
			c.add(k.Line, false, "%s: unknown key %s: Trivy ignores it; %s", label, short(k.Value),
				suggest(key, entryKeys, "the keys are "+strings.Join(entryKeys, ", ")))
		}
	})
	missing := map[string]string{
		"id":         "add the finding's id (e.g. id: CVE-2024-1234)",
		"statement":  "add a statement saying why the finding is accepted",
		"expired_at": "add expired_at: YYYY-MM-DD, the date by which to fix or review it",
	}
	for _, key := range []string{"id", "statement", "expired_at"} {
		if !present[key] {
			c.add(line, false, "%s: no %s: %s", label, key, missing[key])
		}
	}
}

// expiry checks expired_at: a date Trivy can read, written as YYYY-MM-DD, not passed.
func (c *checker) expiry(label string, v *yaml.Node, line int) {
	var t time.Time
	if err := v.Decode(&t); err != nil {
		if _, perr := time.Parse(time.DateOnly, v.Value); perr == nil && v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			c.reject(line, "%s: expired_at %q is quoted, and Trivy reads only a YAML date; write expired_at: %s without quotes",
				label, v.Value, v.Value)
		} else {
			c.reject(line, "%s: expired_at %s is not a date; write YYYY-MM-DD, e.g. expired_at: 2025-06-30", label, describe(v))
		}
		return
	}
	if !datePattern.MatchString(v.Value) {
		c.add(line, false, "%s: expired_at %q: write a date as YYYY-MM-DD; Trivy reads the date as midnight UTC", label, v.Value)
	}
	day := t.UTC().Format(time.DateOnly)
	switch left := t.Sub(c.now); {
	case t.Before(c.now):
		c.add(line, false, "%s: expired on %s, so Trivy reports the finding again; fix it, or renew the entry with a later expired_at and an updated statement",
			label, day)
	case left <= ExpiryWarning:
		c.add(line, true, "%s: expires on %s, %s; fix the finding or renew the entry before then", label, day, inDays(left))
	}
}

func inDays(d time.Duration) string {
	switch n := int(math.Ceil(d.Hours() / 24)); n {
	case 0:
		return "today"
	case 1:
		return "in 1 day"
	default:
		return fmt.Sprintf("in %d days", n)
	}
}

// resolve follows an alias to the node it names, as the decoder does.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 8; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%s (%s)", short(n.Value), strings.TrimPrefix(n.ShortTag(), "!!"))
	}
	return "not a value"
}

// short quotes a value, cut to keep a message readable whatever the file holds.
func short(s string) string {
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40]) + "…"
	}
	return strconv.Quote(s)
}

// suggest names the known key a typo most likely meant, or falls back to listing them.
func suggest(key string, known []string, fallback string) string {
	if s, ok := synonyms[strings.ToLower(key)]; ok && slices.Contains(known, s) {
		return fmt.Sprintf("did you mean %q?", s)
	}
	for _, k := range known {
		if editDistance(strings.ToLower(key), k) <= 2 {
			return fmt.Sprintf("did you mean %q?", k)
		}
	}
	return fallback
}

// editDistance is the Levenshtein distance, enough to catch misspelt keys.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func lineOf(msg string) int {
	if m := linePattern.FindStringSubmatch(msg); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return n
		}
	}
	return 0
}
