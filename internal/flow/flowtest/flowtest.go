// Package flowtest checks, for the tests of every flow, that a failure names its steps the
// way the runner alone does: each step once, and only steps the failed flow declares.
package flowtest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/flow"
)

// Misnamed lists what is wrong with the step names in msg, a failure of a flow that
// declares the steps declared: a step named twice, or a step of known (every step name the
// message could come from) that the flow does not declare. A part of the message between
// ": " names a step when it is the step's name alone, or the name with the image it acted
// on ("sign filer", "sign filer (ref)"), the form step bodies used to name themselves in;
// "tag v0.11.0 resolved to no commit" names no step.
func Misnamed(msg string, declared, known []string) []string {
	first, _, _ := strings.Cut(msg, "\n  next: ")
	count := map[string]int{}
	var wrong []string
	for _, part := range strings.Split(first, ": ") {
		name, ok := namedStep(part, known)
		if !ok {
			continue
		}
		count[name]++
		if count[name] == 2 {
			wrong = append(wrong, fmt.Sprintf("step %s is named twice", name))
		}
		if !slices.Contains(declared, name) && count[name] == 1 {
			wrong = append(wrong, fmt.Sprintf("step %s is not a step of this flow %v", name, declared))
		}
	}
	return wrong
}

// namedStep is the step of known that part names, if any: the longest name part is, or
// starts with before the image it acted on (one word, and a parenthesis after it).
func namedStep(part string, known []string) (string, bool) {
	best := ""
	for _, k := range known {
		rest, ok := strings.CutPrefix(part, k)
		if !ok || len(k) <= len(best) || (rest != "" && rest[0] != ' ') {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) <= 1 || (len(fields) == 2 && strings.HasPrefix(fields[1], "(")) {
			best = k
		}
	}
	return best, best != ""
}

// RequireNamed fails t unless err, a failure of a flow that declares the steps declared,
// is a flow.Error that names one of them as the failed step, and names every step at most
// once and no step the flow does not declare (Misnamed).
func RequireNamed(t testing.TB, err error, declared, known []string) {
	t.Helper()
	var fe *flow.Error
	if !errors.As(err, &fe) {
		t.Errorf("a failure names no step: %v", err)
		return
	}
	if !slices.Contains(declared, fe.Step) {
		t.Errorf("a failure names step %q, which its flow does not declare (%v): %v", fe.Step, declared, err)
	}
	for _, w := range Misnamed(err.Error(), declared, known) {
		t.Errorf("%s: %v", w, err)
	}
}
