package coverage

import (
	"fmt"
	"strconv"
	"strings"
)

// AddedLines reads a unified diff (git diff, any context size) and returns, per file of the
// new tree, the line numbers the change adds. Deleted files add nothing; a renamed file is
// keyed by its new path.
func AddedLines(diff string) (map[string][]int, error) {
	out := map[string][]int{}
	file := ""
	next, left := 0, 0 // the new-side line the next row describes; rows left in the hunk
	inHunk := false
	for i, line := range strings.Split(diff, "\n") {
		n := i + 1
		switch {
		case inHunk && left > 0 && (strings.HasPrefix(line, "+") || strings.HasPrefix(line, " ") || line == ""):
			if strings.HasPrefix(line, "+") && file != "" {
				out[file] = append(out[file], next)
			}
			next++
			left--
		case inHunk && strings.HasPrefix(line, "-"):
			// a removed line: nothing on the new side
		case inHunk && strings.HasPrefix(line, `\`):
			// "\ No newline at end of file"
		case strings.HasPrefix(line, "+++ "):
			inHunk = false
			name := strings.TrimSpace(strings.TrimPrefix(line, "+++ "))
			if tab := strings.IndexByte(name, '\t'); tab >= 0 {
				name = name[:tab]
			}
			switch {
			case name == "/dev/null":
				file = ""
			case strings.HasPrefix(name, "b/"):
				file = strings.TrimPrefix(name, "b/")
			default:
				file = name
			}
		case strings.HasPrefix(line, "@@ "):
			start, count, err := newRange(line)
			if err != nil {
				return nil, fmt.Errorf("diff line %d: %w", n, err)
			}
			next, left, inHunk = start, count, true
		default:
			// headers (diff --git, index, ---, mode and rename lines) end a hunk
			inHunk = false
		}
	}
	return out, nil
}

// newRange reads the new side "+start,count" of a hunk header "@@ -a,b +c,d @@".
func newRange(header string) (start, count int, err error) {
	fields := strings.Fields(header)
	if len(fields) < 4 || fields[0] != "@@" || !strings.HasPrefix(fields[2], "+") || !strings.HasPrefix(fields[3], "@@") {
		return 0, 0, fmt.Errorf("malformed hunk header %q: want @@ -a,b +c,d @@", header)
	}
	s, c, found := strings.Cut(strings.TrimPrefix(fields[2], "+"), ",")
	start, err = strconv.Atoi(s)
	if err != nil || start < 0 {
		return 0, 0, fmt.Errorf("malformed hunk header %q: new start %q", header, s)
	}
	count = 1
	if found {
		count, err = strconv.Atoi(c)
		if err != nil || count < 0 {
			return 0, 0, fmt.Errorf("malformed hunk header %q: new count %q", header, c)
		}
	}
	return start, count, nil
}
