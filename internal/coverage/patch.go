package coverage

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Patch is Codecov's patch coverage of a change: of the lines it adds that are code (in the
// coverage report), how many a test ran.
type Patch struct {
	Covered int
	// Missed lists, per file, the added code lines no test ran, in order.
	Missed map[string][]int
	// Target is the percentage the gate requires (tesk-core's codecov.yml: 100).
	Target float64
}

// MissedCount is the number of added code lines no test ran.
func (p Patch) MissedCount() int {
	n := 0
	for _, l := range p.Missed {
		n += len(l)
	}
	return n
}

// Percent is the patch coverage; a change adding no code line counts as 100%, as Codecov
// passes a patch with nothing to cover.
func (p Patch) Percent() float64 {
	total := p.Covered + p.MissedCount()
	if total == 0 {
		return 100
	}
	return 100 * float64(p.Covered) / float64(total)
}

// Passed reports whether the patch reaches the target.
func (p Patch) Passed() bool { return p.Percent() >= p.Target }

// PatchCoverage decides the gate: every added line that the report knows as code counts,
// covered when its hits are above zero.
func PatchCoverage(added map[string][]int, report Lines, target float64) Patch {
	p := Patch{Missed: map[string][]int{}, Target: target}
	for file, lines := range added {
		code := report[file]
		for _, n := range lines {
			hits, ok := code[n]
			switch {
			case !ok:
			case hits > 0:
				p.Covered++
			default:
				p.Missed[file] = append(p.Missed[file], n)
			}
		}
	}
	for f := range p.Missed {
		slices.Sort(p.Missed[f])
	}
	return p
}

// Report renders the verdict: the percentage, then each file's uncovered lines as ranges.
func (p Patch) Report() string {
	var b strings.Builder
	total := p.Covered + p.MissedCount()
	verdict := "passed"
	if !p.Passed() {
		verdict = "FAILED"
	}
	fmt.Fprintf(&b, "Patch coverage %s: %.2f%% of %d changed code lines (target %.0f%%).\n", verdict, p.Percent(), total, p.Target)
	files := make([]string, 0, len(p.Missed))
	for f := range p.Missed {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		fmt.Fprintf(&b, "  %s: lines %s not covered\n", f, ranges(p.Missed[f]))
	}
	if !p.Passed() {
		b.WriteString("Fix: add tests that run these lines (the tests must cover every changed line, as Codecov requires).\n")
	}
	return b.String()
}

// ranges writes sorted line numbers as "3-5, 9".
func ranges(lines []int) string {
	var parts []string
	for i := 0; i < len(lines); {
		j := i
		for j+1 < len(lines) && lines[j+1] == lines[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, fmt.Sprint(lines[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", lines[i], lines[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
