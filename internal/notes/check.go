// Package notes holds the rules of tesk-core's curated release notes
// (docs/releases/<version>.md) and composes a GitHub release body from those notes and
// GitHub's generated notes.
//
// The curated format: an intro paragraph saying what the release brings; then only the
// sections "## Breaking changes", "## Features", "## Security", "## Fixes",
// "## Documentation" and "## Maintenance", in this order, each at most once, empty ones
// left out; sections hold bullets only, each ending with its issue and pull request
// numbers, e.g. (#12, #34); every link is absolute, as the notes are published on GitHub.
package notes

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Problem is one broken rule, at a 1-based line. The citation package reports with the same
// type, so the release checks print one kind of list.
type Problem struct {
	Line    int
	Message string
}

// String renders the problem as "line N: message".
func (p Problem) String() string { return fmt.Sprintf("line %d: %s", p.Line, p.Message) }

// Format renders problems as "name:line: message" lines, the form editors and CI logs link.
func Format(name string, problems []Problem) string {
	var b strings.Builder
	for _, p := range problems {
		fmt.Fprintf(&b, "%s:%d: %s\n", name, p.Line, p.Message)
	}
	return b.String()
}

// Err returns nil when there are no problems, otherwise an error that lists them all under
// name, so a failed check shows every fix at once rather than one per run.
func Err(name string, problems []Problem) error {
	if len(problems) == 0 {
		return nil
	}
	return errors.New(strings.TrimSuffix(fmt.Sprintf("%d problem(s) in %s:\n%s", len(problems), name, Format(name, problems)), "\n"))
}

// sections are the allowed section headings, in their required order.
var sections = []string{"Breaking changes", "Features", "Security", "Fixes", "Documentation", "Maintenance"}

// Sections returns the allowed section titles (without "## "), in their required order.
func Sections() []string { return slices.Clone(sections) }

// sectionAliases maps headings people commonly write to the section they mean.
var sectionAliases = map[string]string{
	"breaking":          "Breaking changes",
	"breaking change":   "Breaking changes",
	"feature":           "Features",
	"new features":      "Features",
	"added":             "Features",
	"enhancements":      "Features",
	"fix":               "Fixes",
	"bug fixes":         "Fixes",
	"bugfixes":          "Fixes",
	"bugs":              "Fixes",
	"fixed":             "Fixes",
	"docs":              "Documentation",
	"chores":            "Maintenance",
	"chore":             "Maintenance",
	"dependencies":      "Maintenance",
	"internal":          "Maintenance",
	"security fixes":    "Security",
	"vulnerabilities":   "Security",
	"documentation fix": "Documentation",
}

var (
	headingPattern  = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$`)
	closingHashes   = regexp.MustCompile(`(?:^|[ \t]+)#+$`)
	refDefPattern   = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:[ \t]*(<[^>]*>|\S+)?`)
	bulletPattern   = regexp.MustCompile(`^[-*](?:[ \t]+|$)`)
	listItemPattern = regexp.MustCompile(`^ {0,3}(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]|$)`)
	fencePattern    = regexp.MustCompile("^[ \t]*(`{3,}|~{3,})")
	thematicBreak   = regexp.MustCompile(`^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)
	setextUnderline = regexp.MustCompile(`^ {0,3}(?:=+|-+)[ \t]*$`)
	refsAtEnd       = regexp.MustCompile(`\(#[1-9][0-9]*(?:, #[1-9][0-9]*)*\)$`)
	refsThenMore    = regexp.MustCompile(`\(#[1-9][0-9]*(?:, #[1-9][0-9]*)*\)\S+$`)
	looseRefsAtEnd  = regexp.MustCompile(`\([^()]*#[0-9]+[^()]*\)\S*$`)
	htmlURLPattern  = regexp.MustCompile(`(?i)\b(?:href|src)[ \t]*=[ \t]*(?:"([^"]*)"|'([^']*)')`)
)

const refsExample = "(#12, #34)"

// checker walks the lines once, keeping the state of the section and bullet it is in.
type checker struct {
	problems []Problem

	inSection   bool // false while in the intro
	section     string
	sectionLine int
	bullets     int
	known       bool // the current section is one of sections
	lastIndex   int  // index in sections of the last known section, -1 before any
	seen        map[string]int

	introLines    int
	reportedIntro bool
	prevProse     bool // the previous intro line was paragraph text (for setext headings)

	bulletLine int // 0 when no bullet is open
	bulletText []string
	lazyOK     bool // the previous line was bullet text, so unindented text continues it

	fence         string // the opening fence run while inside a fenced code block
	fenceInBullet bool
}

func (c *checker) add(line int, format string, args ...any) {
	c.problems = append(c.problems, Problem{Line: line, Message: fmt.Sprintf(format, args...)})
}

// Check returns the problems of curated release notes, nil when they follow the format.
// name is the file's path, used in messages about the whole file. CRLF line endings and a
// UTF-8 byte order mark are accepted; invalid UTF-8 is a problem.
func Check(name string, content []byte) []Problem {
	c := &checker{lastIndex: -1, seen: map[string]int{}}
	text := strings.TrimPrefix(string(content), "\uFEFF")
	if strings.TrimSpace(text) == "" {
		c.add(1, "%s is empty: start it with an intro paragraph saying what the release brings, then the sections (%s) with bullets", name, headingList())
		return c.problems
	}
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, line := range lines {
		n := i + 1
		line = strings.TrimSuffix(line, "\r")
		if !utf8.ValidString(line) {
			c.add(n, "the line is not valid UTF-8: save the file as UTF-8")
		}
		c.line(n, line)
	}
	c.finishBullet()
	c.closeSection()
	slices.SortStableFunc(c.problems, func(a, b Problem) int { return a.Line - b.Line })
	return c.problems
}

func headingList() string {
	hs := make([]string, len(sections))
	for i, s := range sections {
		hs[i] = "## " + s
	}
	return strings.Join(hs, ", ")
}

func (c *checker) line(n int, line string) {
	if c.fence != "" {
		c.fenceLine(line)
		return
	}
	if strings.TrimSpace(line) == "" {
		c.prevProse = false
		c.lazyOK = false
		return
	}
	indented := line[0] == ' ' || line[0] == '\t'
	if c.inSection && c.bulletLine != 0 && indented {
		c.continuation(n, line)
		return
	}
	if m := headingPattern.FindStringSubmatch(line); m != nil {
		c.checkLinks(n, line)
		c.heading(n, len(m[1]), strings.TrimSpace(closingHashes.ReplaceAllString(m[2], "")))
		return
	}
	if m := refDefPattern.FindStringSubmatch(line); m != nil {
		// Reference definitions render as nothing, so they may sit anywhere.
		c.checkURL(n, strings.Trim(m[1], "<>"))
		c.lazyOK = false
		return
	}
	c.checkLinks(n, line)
	if !c.inSection {
		c.introLine(n, line)
		return
	}
	c.bodyLine(n, line, indented)
}

func (c *checker) fenceLine(line string) {
	if c.fenceInBullet {
		c.bulletText = append(c.bulletText, line)
	}
	if m := fencePattern.FindStringSubmatch(line); m != nil && m[1][0] == c.fence[0] && len(m[1]) >= len(c.fence) &&
		strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), m[1][:1])) == "" {
		c.fence = ""
	}
}

func (c *checker) openFence(line string, inBullet bool) bool {
	m := fencePattern.FindStringSubmatch(line)
	if m == nil {
		return false
	}
	c.fence = m[1]
	c.fenceInBullet = inBullet
	return true
}

func (c *checker) continuation(n int, line string) {
	c.bulletText = append(c.bulletText, line)
	c.lazyOK = true
	if c.openFence(line, true) {
		return
	}
	c.checkLinks(n, line)
}

func (c *checker) heading(n, level int, title string) {
	c.finishBullet()
	c.prevProse = false
	text := strings.TrimSpace(strings.Repeat("#", level) + " " + title)
	if level != 2 {
		// Other levels neither start nor end a section: a title above the intro stays in
		// the intro, and a sub-heading leaves its bullets in the section around it.
		if c.inSection {
			c.add(n, "heading %q inside section \"## %s\": sections hold bullets only; remove the heading or make it a bullet", text, c.section)
		} else {
			c.add(n, "heading %q: the notes start with the intro paragraph, with no title or other heading before it, and use only the sections %s; remove it", text, headingList())
		}
		return
	}
	if !c.inSection && c.introLines == 0 && !c.reportedIntro {
		c.reportedIntro = true
		c.add(n, "no intro before the first section: start the notes with a paragraph (not a heading or bullets) saying what the release brings")
	}
	c.closeSection()
	c.inSection = true
	c.section, c.sectionLine, c.bullets, c.known = title, n, 0, false
	idx := slices.Index(sections, title)
	if idx < 0 {
		c.add(n, "unknown section %q: %s", text, suggestSection(title))
		return
	}
	c.known = true
	if first, ok := c.seen[title]; ok {
		c.add(n, "section \"## %s\" appears again (first on line %d): merge its bullets into one section", title, first)
		return
	}
	c.seen[title] = n
	if idx < c.lastIndex {
		c.add(n, "section \"## %s\" is out of order: it goes before \"## %s\" (order: %s)", title, sections[c.lastIndex], headingList())
	}
	c.lastIndex = max(c.lastIndex, idx)
}

func suggestSection(title string) string {
	lower := strings.ToLower(strings.TrimSpace(title))
	for _, s := range sections {
		if strings.ToLower(s) == lower {
			return fmt.Sprintf("write it exactly as \"## %s\"", s)
		}
	}
	if s, ok := sectionAliases[lower]; ok {
		return fmt.Sprintf("use \"## %s\"", s)
	}
	switch lower {
	case "commits", "what's changed", "new contributors":
		return "the release workflow adds GitHub's generated notes itself; remove this section"
	}
	return "use only " + headingList()
}

func (c *checker) closeSection() {
	if c.inSection && c.known && c.bullets == 0 {
		c.add(c.sectionLine, "section \"## %s\" has no bullets: add bullets or remove the heading (empty sections are left out)", c.section)
	}
}

func (c *checker) introLine(n int, line string) {
	defer func() { c.lazyOK = false }()
	switch {
	case c.prevProse && setextUnderline.MatchString(line):
		c.add(n, "a line of only '=' or '-' under text makes that text a heading: the intro is prose; remove the underline")
		c.prevProse = false
		return
	case thematicBreak.MatchString(line):
		c.add(n, "horizontal rule in the intro: the intro is prose; remove it")
		c.prevProse = false
		return
	case listItemPattern.MatchString(line):
		c.add(n, "list item in the intro: the intro is prose; move bullets into a section (%s)", headingList())
		c.prevProse = false
		return
	}
	if c.openFence(line, false) {
		return
	}
	c.introLines++
	c.prevProse = true
}

// bodyLine handles a line of a section body outside any open bullet continuation.
func (c *checker) bodyLine(n int, line string, indented bool) {
	if thematicBreak.MatchString(line) { // "* * *" and "- - -" are rules, not bullets
		c.finishBullet()
		c.add(n, "horizontal rule in section \"## %s\": sections hold bullets only; remove it", c.section)
		return
	}
	if loc := bulletPattern.FindStringIndex(line); loc != nil {
		c.finishBullet()
		c.bullets++
		c.bulletLine = n
		c.bulletText = []string{line[loc[1]:]}
		c.lazyOK = true
		c.openFence(line[loc[1]:], true)
		return
	}
	switch {
	case c.lazyOK && !indented && !listItemPattern.MatchString(line):
		// Markdown would continue the bullet, but the format asks for indentation.
		c.bulletText = append(c.bulletText, line)
		c.add(n, "continuation of the bullet on line %d is not indented: indent it, or start a new bullet with \"- \"", c.bulletLine)
		return
	case indented:
		c.add(n, "indented line with no bullet above it in section \"## %s\": sections hold bullets only; start the bullet with \"- \" at the beginning of the line", c.section)
	case listItemPattern.MatchString(line):
		c.add(n, "list item in section \"## %s\": bullets start with \"- \" or \"* \" (no numbers or +)", c.section)
	default:
		c.add(n, "text in section \"## %s\" is not a bullet: sections hold bullets only; start it with \"- \" (move prose to the intro)", c.section)
	}
	c.finishBullet()
	c.openFence(line, false)
}

func (c *checker) finishBullet() {
	if c.bulletLine == 0 {
		return
	}
	parts := make([]string, 0, len(c.bulletText))
	for _, p := range c.bulletText {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	text := strings.Join(parts, " ")
	switch {
	case text == "":
		c.add(c.bulletLine, "empty bullet: write the change and end it with its issue and pull request numbers, e.g. %s", refsExample)
	case refsAtEnd.MatchString(text):
	case refsThenMore.MatchString(text):
		c.add(c.bulletLine, "bullet has text after its issue and pull request numbers: end the bullet with the numbers, e.g. %s, with nothing after them", refsExample)
	case looseRefsAtEnd.MatchString(text):
		c.add(c.bulletLine, "bullet's issue and pull request numbers are not written as %s: use \"#\" before each number, separated by \", \", in one pair of parentheses at the end", refsExample)
	default:
		c.add(c.bulletLine, "bullet does not end with its issue and pull request numbers: add them in parentheses at the end, e.g. %s", refsExample)
	}
	c.bulletLine, c.bulletText, c.lazyOK = 0, nil, false
}

// checkLinks checks inline links and images ([t](url), ![a](url)) and HTML href/src
// attributes of one line, outside code spans.
func (c *checker) checkLinks(n int, line string) {
	line = stripCodeSpans(line)
	for rest := line; ; {
		i := strings.Index(rest, "](")
		if i < 0 {
			break
		}
		rest = rest[i+2:]
		if dest, end, ok := linkDestination(rest); ok {
			c.checkURL(n, dest)
			rest = rest[end:]
		}
	}
	for _, m := range htmlURLPattern.FindAllStringSubmatch(line, -1) {
		c.checkURL(n, m[1]+m[2])
	}
}

// maxDestination bounds the scan for a link's end: no real URL is longer, and the bound
// keeps lines full of "](" from costing quadratic time.
const maxDestination = 2048

// linkDestination reads the destination that starts s (after "]("): <...>, or a run
// without spaces in which parentheses balance. It returns the destination, where it ends
// in s, and whether it is one: Markdown makes no link of a destination whose parenthesis
// never closes.
func linkDestination(s string) (dest string, end int, ok bool) {
	start := len(s) - len(strings.TrimLeft(s, " \t"))
	s = s[start:]
	if strings.HasPrefix(s, "<") {
		if i := strings.IndexAny(s[:min(len(s), maxDestination)], ">\n"); i > 0 && s[i] == '>' {
			return s[1:i], start + i + 1, true
		}
		return "", 0, false
	}
	depth := 0
	for i := 0; i < len(s) && i < maxDestination; i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return s[:i], start + i, true
			}
			depth--
		case ' ', '\t':
			if depth == 0 && closesWithTitle(s[i:]) {
				return s[:i], start + i, true
			}
			return "", 0, false
		}
	}
	return "", 0, false
}

func titleCloser(open byte) (byte, bool) {
	switch open {
	case '"', '\'':
		return open, true
	case '(':
		return ')', true
	}
	return 0, false
}

// closesWithTitle reports whether s, which follows a link destination, holds an optional
// title ("t", 't' or (t)) and then the link's closing parenthesis, as Markdown requires.
func closesWithTitle(s string) bool {
	s = strings.TrimLeft(s, " \t")
	if s == "" {
		return false
	}
	if closer, ok := titleCloser(s[0]); ok {
		i := strings.IndexByte(s[1:min(len(s), maxDestination)], closer)
		if i < 0 {
			return false
		}
		s = strings.TrimLeft(s[i+2:], " \t")
	}
	return strings.HasPrefix(s, ")")
}

func (c *checker) checkURL(n int, dest string) {
	lower := strings.ToLower(dest)
	if len(dest) > 80 {
		dest = dest[:80] + "…" // keep messages readable
	}
	switch {
	case strings.HasPrefix(lower, "https://") && len(dest) > len("https://"),
		strings.HasPrefix(lower, "http://") && len(dest) > len("http://"):
	case dest == "":
		c.add(n, "empty link: give the link an absolute https:// URL")
	case strings.HasPrefix(dest, "#"):
		c.add(n, "link %q points to an anchor of this page, which does not exist on GitHub's release page: use the absolute URL of the page holding it (https://…%s)", dest, dest)
	case strings.Contains(lower, ":") && !strings.ContainsAny(lower[:strings.Index(lower, ":")], "/?#"):
		c.add(n, "link %q is not an http:// or https:// link: link to a web page with an absolute https:// URL", dest)
	default:
		c.add(n, "relative link %q: the notes are published on GitHub, where relative links break; use an absolute https:// URL", dest)
	}
}

// stripCodeSpans blanks `code spans`, whose brackets are not links.
func stripCodeSpans(line string) string {
	if !strings.Contains(line, "`") {
		return line
	}
	b := []byte(line)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		run := backtickRun(b, i)
		closeAt := closingRun(b, i+run, run)
		if closeAt < 0 {
			i += run
			continue
		}
		for k := i; k < closeAt+run; k++ {
			b[k] = ' '
		}
		i = closeAt + run
	}
	return string(b)
}

// backtickRun is the length of the run of backticks that starts at b[i].
func backtickRun(b []byte, i int) int {
	n := 0
	for i+n < len(b) && b[i+n] == '`' {
		n++
	}
	return n
}

// closingRun is where the first run of exactly n backticks at or after b[from] starts, or
// -1: a code span closes only on a run as long as the one that opened it.
func closingRun(b []byte, from, n int) int {
	for j := from; j < len(b); {
		if b[j] != '`' {
			j++
			continue
		}
		k := backtickRun(b, j)
		if k == n {
			return j
		}
		j += k
	}
	return -1
}
