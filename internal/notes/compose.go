package notes

import "strings"

// CommitsHeading introduces GitHub's generated notes in a composed release body.
const CommitsHeading = "## Commits"

// Compose builds the body of a GitHub release: the curated notes, then GitHub's generated
// notes (from the generate-notes API) under "## Commits", then GitHub's "**Full Changelog**"
// line, kept exactly, last.
//
// From the generated notes it drops the "<!-- Release notes generated … -->" comment and the
// "## What's Changed" header (our "## Commits" replaces it), keeps everything else as
// GitHub wrote it ("### category" headings, "## New Contributors"), and collapses runs of
// blank lines. When nothing is left (a release without pull requests), no empty
// "## Commits" section is written. CRLF line endings are read as LF. The result ends with
// exactly one newline, or is empty when both inputs are.
func Compose(curated, generated string) string {
	curatedLines := trimBlankEdges(splitLines(curated))
	genLines := splitLines(generated)

	// The footer is the last Full Changelog line; it moves to the very end.
	footer, hasFooter := "", false
	for i := len(genLines) - 1; i >= 0; i-- {
		if isFullChangelog(genLines[i]) {
			footer, hasFooter = genLines[i], true
			genLines = append(genLines[:i:i], genLines[i+1:]...)
			break
		}
	}

	var body []string
	for _, l := range genLines {
		if isWhatsChanged(l) || isGeneratorComment(l) {
			continue
		}
		if isBlank(l) {
			if len(body) == 0 || body[len(body)-1] == "" {
				continue
			}
			l = ""
		}
		body = append(body, l)
	}
	body = trimBlankEdges(body)

	var parts []string
	if len(curatedLines) > 0 {
		parts = append(parts, strings.Join(curatedLines, "\n"))
	}
	if len(body) > 0 {
		parts = append(parts, CommitsHeading+"\n\n"+strings.Join(body, "\n"))
	}
	if hasFooter {
		parts = append(parts, footer)
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "\n\n") + "\n"
}

func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func trimBlankEdges(lines []string) []string {
	for len(lines) > 0 && isBlank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && isBlank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func isBlank(l string) bool { return strings.TrimSpace(l) == "" }

// isFullChangelog matches GitHub's footer, e.g.
// "**Full Changelog**: https://github.com/o/r/compare/v1.0.0...v1.1.0" or, for a first
// release, ".../commits/v1.0.0".
func isFullChangelog(l string) bool {
	return strings.HasPrefix(strings.TrimSpace(l), "**Full Changelog**")
}

func isWhatsChanged(l string) bool {
	t := strings.TrimSpace(l)
	return t == "## What's Changed" || t == "## What’s Changed"
}

// isGeneratorComment matches the comment GitHub puts first when .github/release.yml
// configures the notes; it says nothing to readers of the release.
func isGeneratorComment(l string) bool {
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, "<!-- Release notes generated") && strings.HasSuffix(t, "-->")
}
