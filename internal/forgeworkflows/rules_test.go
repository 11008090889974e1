package forgeworkflows

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"

	"dagger/shipyard/internal/testkit/ghworkflow"
)

// lint runs actionlint over both workflows with the set's actionlint.yaml (shellcheck and
// pyflakes off, as for the example workflows).
func lint(s set) []string {
	dir, err := os.MkdirTemp("", "forgeworkflows")
	if err != nil {
		return []string{err.Error()}
	}
	defer os.RemoveAll(dir)
	config := filepath.Join(dir, "actionlint.yaml")
	if err := os.WriteFile(config, []byte(s.text["actionlint.yaml"]), 0o600); err != nil {
		return []string{err.Error()}
	}
	linter, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{ConfigFile: config})
	if err != nil {
		return []string{err.Error()}
	}
	var bad []string
	for _, name := range []string{"ci.yml", "release.yml"} {
		// A path that does not exist from here, so that actionlint reads no other config.
		errs, err := linter.Lint(files[name], []byte(s.text[name]), nil)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", name, err))
		}
		for _, e := range errs {
			bad = append(bad, fmt.Sprintf("%s:%d:%d: %s [%s]", name, e.Line, e.Column, e.Message, e.Kind))
		}
	}
	return bad
}

func TestWorkflowsPassActionlint(t *testing.T) {
	holds(t, lint, []mutation{
		change("runner label undeclared", "actionlint.yaml", "    - shipyard-engine-kit\n", "    - another-label\n"),
		change("output of a job it does not need", "release.yml", "if: needs.gates.outputs.tag != ''", "if: needs.gate.outputs.tag != ''"),
		change("unknown permission", "ci.yml", "      contents: read\n", "      content: read\n"),
	})
}

// statusFunction is a status check of a job's condition other than success(): with one, a
// job runs even though a job it needs was skipped or failed.
var statusFunction = regexp.MustCompile(`\b(always|failure|cancelled)\s*\(`)

// clauses returns the &&-joined clauses of a condition, each with its spaces normalised.
func clauses(cond string) []string {
	cond = strings.TrimSpace(cond)
	if inner, ok := strings.CutPrefix(cond, "${{"); ok {
		cond = strings.TrimSuffix(inner, "}}")
	}
	var out []string
	for _, c := range strings.Split(cond, "&&") {
		out = append(out, strings.Join(strings.Fields(c), " "))
	}
	slices.Sort(out)
	return out
}

// releaseCondition is what the release's first job runs under: a successful push run of CI
// on main, in this repository (not a fork's).
var releaseCondition = []string{
	"github.event.workflow_run.conclusion == 'success'",
	"github.event.workflow_run.event == 'push'",
	"github.event.workflow_run.head_branch == 'main'",
	"github.repository == 'elixir-cloud-aai/shipyard'",
}

// releaseTrigger: the release runs on CI's completed runs on main alone, its first job
// under releaseCondition exactly, and every other job only after that one succeeded.
func releaseTrigger(s set) []string {
	var bad []string
	var on map[string]struct {
		Workflows []string `yaml:"workflows"`
		Types     []string `yaml:"types"`
		Branches  []string `yaml:"branches"`
	}
	if err := s.release.On.Decode(&on); err != nil {
		return []string{"release.yml: on: " + err.Error()}
	}
	run, ok := on["workflow_run"]
	if len(on) != 1 || !ok {
		bad = append(bad, fmt.Sprintf("release.yml runs on %d events; want workflow_run alone", len(on)))
	}
	if s.ci.Name == "" || !slices.Equal(run.Workflows, []string{s.ci.Name}) {
		bad = append(bad, fmt.Sprintf("release.yml follows the workflows %q, want only ci.yml's %q", run.Workflows, s.ci.Name))
	}
	if !slices.Equal(run.Types, []string{"completed"}) {
		bad = append(bad, fmt.Sprintf("release.yml follows CI's runs %q, want [completed]", run.Types))
	}
	if !slices.Equal(run.Branches, []string{"main"}) {
		bad = append(bad, fmt.Sprintf("release.yml follows CI on the branches %q, want [main]", run.Branches))
	}

	want := slices.Clone(releaseCondition)
	slices.Sort(want)
	covered := map[string]bool{}
	for id, j := range s.release.Jobs {
		covered[id] = slices.Equal(clauses(j.If), want)
	}
	if !slices.ContainsFunc(slices.Collect(maps.Values(covered)), func(c bool) bool { return c }) {
		bad = append(bad, fmt.Sprintf("no job of release.yml runs under exactly %q", releaseCondition))
	}
	// A job is covered when it waits for a covered job and cannot run when that one did not
	// succeed; repeated until nothing changes, for chains of jobs.
	for changed := true; changed; {
		changed = false
		for id, j := range s.release.Jobs {
			if covered[id] || statusFunction.MatchString(j.If) {
				continue
			}
			if slices.ContainsFunc(j.Needs, func(n string) bool { return covered[n] }) {
				covered[id], changed = true, true
			}
		}
	}
	for id := range s.release.Jobs {
		if !covered[id] {
			bad = append(bad, fmt.Sprintf("release.yml: job %s may run without the release condition: give it the condition or make it need a job that has it (without always(), failure() or cancelled())", id))
		}
	}
	return bad
}

func TestReleaseRunsOnlyAfterCIPassedOnMain(t *testing.T) {
	holds(t, releaseTrigger, []mutation{
		change("a push trigger too", "release.yml", "on:\n  workflow_run:", "on:\n  push:\n  workflow_run:"),
		change("another workflow", "release.yml", "workflows: [CI]", "workflows: [Lint]"),
		change("CI renamed", "ci.yml", "name: CI\n", "name: Tests\n"),
		change("requested runs too", "release.yml", "types: [completed]", "types: [completed, requested]"),
		change("CI on any branch", "release.yml", "    branches: [main]\n", "    branches: [main, dev]\n"),
		change("any conclusion but failure", "release.yml", "conclusion == 'success'", "conclusion != 'failure'"),
		change("pull-request runs too", "release.yml", "github.event.workflow_run.event == 'push' &&\n", ""),
		change("any branch of the run", "release.yml", "head_branch == 'main'", "head_branch != ''"),
		change("forks too", "release.yml", " &&\n      github.repository == 'elixir-cloud-aai/shipyard'", ""),
		change("an or", "release.yml", "github.repository == 'elixir-cloud-aai/shipyard'", "github.repository == 'elixir-cloud-aai/shipyard' || true"),
		change("the tag job runs always", "release.yml", "if: needs.gates.outputs.tag != ''", "if: always() && needs.gates.outputs.tag != ''"),
		change("the tag job waits for nothing", "release.yml", "    needs: gates\n", ""),
	})
}

// expressionInRun: no ${{ }} inside a script, where a value would be pasted into the
// shell's source (template injection); values reach scripts through env.
func expressionInRun(s set) []string {
	var bad []string
	s.each(func(where, _ string, j job) {
		for _, st := range j.Steps {
			if strings.Contains(st.Run, "${{") {
				bad = append(bad, fmt.Sprintf("%s: step %q puts an expression in its script; pass it through env", where, st.Name))
			}
		}
	})
	return bad
}

func TestNoExpressionInAnyScript(t *testing.T) {
	holds(t, expressionInRun, []mutation{
		change("the commit inline", "release.yml", `commits/$SHA/check-runs`, `commits/${{ github.event.workflow_run.head_sha }}/check-runs`),
		change("the tag inline", "release.yml", `git tag -s -m "Shipyard $TAG"`, `git tag -s -m "Shipyard ${{ needs.gates.outputs.tag }}"`),
		change("a pull request's title inline", "ci.yml", "          bash .ci/run\n", "          echo \"${{ github.event.pull_request.title }}\"\n          bash .ci/run\n"),
	})
}

var (
	pinnedUses = regexp.MustCompile(`^([\w.-]+/[\w.-]+(?:/[\w./-]+)?)@([0-9a-f]{40})$`)
	versionPin = regexp.MustCompile(`^# v\d+\.\d+\.\d+$`)
)

// pins: every action is pinned by its full commit with the version as a comment, and an
// action the example workflows also use is pinned as they pin it.
func pins(s set) []string {
	var bad []string
	s.each(func(where, _ string, j job) {
		for _, st := range j.Steps {
			if st.Uses == "" {
				continue
			}
			m := pinnedUses.FindStringSubmatch(st.Uses)
			if m == nil {
				bad = append(bad, fmt.Sprintf("%s: %q is not pinned by a full commit", where, st.Uses))
				continue
			}
			if !versionPin.MatchString(st.Pin) {
				bad = append(bad, fmt.Sprintf("%s: %s has the comment %q, want its version: # vX.Y.Z", where, st.Uses, st.Pin))
			}
			if theirs, ok := s.examplePins[m[1]]; ok && !slices.Contains(theirs, m[2]+" "+st.Pin) {
				bad = append(bad, fmt.Sprintf("%s: %s %s, but the example workflows pin %q", where, st.Uses, st.Pin, theirs))
			}
		}
	})
	return bad
}

func TestActionsPinnedByCommitAsTheExamplesPinThem(t *testing.T) {
	holds(t, pins, []mutation{
		change("a tag", "ci.yml", "@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1", "@v7.0.1"),
		change("a short commit", "release.yml", "@3d3c42e5aac5ba805825da76410c181273ba90b1", "@3d3c42e"),
		change("no version", "release.yml", "b7ad1dad31e06c5925ef5d2fc7ad053ef454303e # v7.0.0", "b7ad1dad31e06c5925ef5d2fc7ad053ef454303e"),
		change("a major only", "release.yml", "b7ad1dad31e06c5925ef5d2fc7ad053ef454303e # v7.0.0", "b7ad1dad31e06c5925ef5d2fc7ad053ef454303e # v7"),
		change("another commit than the examples'", "ci.yml", "3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1", "9c091bb21b7c1c1d1991bb908d89e4e9dddfe3e0 # v7.0.0"),
	})
}

// pushes: every git push is --atomic, and the release pushes tags only.
func atomicPushes(s set) []string {
	var bad []string
	n := 0
	s.each(func(where, _ string, j job) {
		for _, st := range j.Steps {
			for _, c := range commands(st.Run, "git push") {
				if strings.HasPrefix(where, "release.yml") {
					n++
				}
				args := strings.Fields(c)[2:]
				if !slices.Contains(args, "--atomic") {
					bad = append(bad, fmt.Sprintf("%s: %q is not --atomic", where, c))
				}
				for i, a := range args {
					if a == "origin" {
						for _, ref := range args[i+1:] {
							if !strings.HasPrefix(strings.Trim(ref, `"'`), "refs/tags/") {
								bad = append(bad, fmt.Sprintf("%s: %q pushes %s, not a tag", where, c, ref))
							}
						}
					}
				}
			}
		}
	})
	if n == 0 {
		bad = append(bad, "release.yml pushes no tag")
	}
	return bad
}

func TestPushesAreAtomicAndOfTagsOnly(t *testing.T) {
	holds(t, atomicPushes, []mutation{
		change("not atomic", "release.yml", "git push --atomic origin", "git push origin"),
		change("main too", "release.yml", `git push --atomic origin "refs/tags/$TAG"`, `git push --atomic origin "refs/tags/$TAG" main`),
		change("no push", "release.yml", `git push --atomic origin "refs/tags/$TAG"`, "true"),
	})
}

// The identity the tag is signed with, as Fulcio certifies a job of this file on main, and
// the issuer of GitHub's tokens: what users verify the tag against.
const (
	releaseIdentity = "https://github.com/elixir-cloud-aai/shipyard/.github/workflows/release.yml@refs/heads/main"
	releaseIssuer   = "https://token.actions.githubusercontent.com"
)

var gitsignInstall = regexp.MustCompile(`^go install github\.com/sigstore/gitsign@v\d+\.\d+\.\d+$`)

// where is a place in a job: the step, then the line of its script.
type where struct{ step, line int }

func (a where) before(b where) bool { return a.step < b.step || a.step == b.step && a.line < b.line }

// find returns the places in a job's scripts of the commands starting with prefix.
func find(j job, prefix string) (at []where, cmds []string) {
	for i, st := range j.Steps {
		for l, line := range strings.Split(strings.ReplaceAll(st.Run, "\\\n", " "), "\n") {
			for _, c := range commands(line, prefix) {
				at, cmds = append(at, where{i, l}), append(cmds, c)
			}
		}
	}
	return at, cmds
}

// signedTags: the job that tags signs every tag (-s), with gitsign configured in that
// job before it (gpg.format x509, gpg.x509.program gitsign, gitsign installed at a
// version), the job's identity token at hand, and verifies the tag against the workflow's
// identity and GitHub's issuer before anything is pushed.
func signedTags(s set) []string {
	var bad []string
	tagging := 0
	for id, j := range s.release.Jobs {
		at, tags := find(j, "git tag")
		if len(tags) == 0 {
			continue
		}
		tagging++
		in := "release.yml: job " + id
		for _, c := range tags {
			f := strings.Fields(c)
			if !slices.Contains(f, "-s") && !slices.Contains(f, "--sign") || slices.Contains(f, "--no-sign") {
				bad = append(bad, fmt.Sprintf("%s: %q is not signed (-s)", in, c))
			}
		}
		first := at[0]
		configured := map[string]bool{}
		cfgAt, cfgs := find(j, "git config")
		for i, c := range cfgs {
			if cfgAt[i].before(first) {
				configured[strings.Join(strings.Fields(c)[2:], " ")] = true
			}
		}
		for _, want := range []string{"gpg.format x509", "gpg.x509.program gitsign"} {
			if !configured[want] {
				bad = append(bad, fmt.Sprintf("%s: no `git config %s` before the tag is made", in, want))
			}
		}
		installed := false
		instAt, insts := find(j, "go install")
		for i, c := range insts {
			if strings.Contains(c, "github.com/sigstore/gitsign@") && instAt[i].before(first) {
				installed = true
				if !gitsignInstall.MatchString(c) {
					bad = append(bad, fmt.Sprintf("%s: %q installs gitsign at no fixed version", in, c))
				}
			}
		}
		if !installed {
			bad = append(bad, in+": gitsign is not installed in the job before the tag is made")
		}
		if g, _ := ghworkflow.Grants(j.Permissions); g["id-token"] != "write" {
			bad = append(bad, in+": no id-token: write, so gitsign has no identity to sign with")
		}
		if j.Env["IDENTITY"] != releaseIdentity || j.Env["ISSUER"] != releaseIssuer {
			bad = append(bad, fmt.Sprintf("%s: verifies against %q from %q, want %q from %q", in, j.Env["IDENTITY"], j.Env["ISSUER"], releaseIdentity, releaseIssuer))
		}
		pushAt, _ := find(j, "git push")
		verified := false
		verAt, vers := find(j, "gitsign verify-tag")
		for i, c := range vers {
			f := strings.Fields(c)
			if slices.Contains(f, "--certificate-identity") && slices.Contains(f, `"$IDENTITY"`) &&
				slices.Contains(f, "--certificate-oidc-issuer") && slices.Contains(f, `"$ISSUER"`) &&
				slices.Index(f, "--certificate-identity")+1 == slices.Index(f, `"$IDENTITY"`) &&
				slices.Index(f, "--certificate-oidc-issuer")+1 == slices.Index(f, `"$ISSUER"`) &&
				first.before(verAt[i]) && (len(pushAt) == 0 || verAt[i].before(pushAt[0])) {
				verified = true
			}
		}
		if !verified {
			bad = append(bad, in+`: the tag is not verified with gitsign verify-tag --certificate-identity "$IDENTITY" --certificate-oidc-issuer "$ISSUER" between its making and its push`)
		}
	}
	if tagging == 0 {
		bad = append(bad, "release.yml makes no tag")
	}
	return bad
}

func TestTagSignedWithGitsignConfiguredInItsJob(t *testing.T) {
	holds(t, signedTags, []mutation{
		change("annotated only", "release.yml", "git tag -s -m", "git tag -a -m"),
		change("no x509 format", "release.yml", "          git config gpg.format x509\n", ""),
		change("another program", "release.yml", "gpg.x509.program gitsign", "gpg.x509.program smimesign"),
		{name: "configured in the gates' job", file: "release.yml", edits: []edit{
			{"          git config gpg.format x509\n          git config gpg.x509.program gitsign\n", ""},
			{"          cat \"$RUNNER_TEMP/next.txt\"\n", "          cat \"$RUNNER_TEMP/next.txt\"\n          git config gpg.format x509\n          git config gpg.x509.program gitsign\n"},
		}},
		change("gitsign at latest", "release.yml", "gitsign@v0.17.1", "gitsign@latest"),
		change("gitsign not installed", "release.yml", `GOBIN="$RUNNER_TEMP/bin" go install github.com/sigstore/gitsign@v0.17.1`, "true"),
		change("no identity token", "release.yml", "      id-token: write #", "      actions: read #"),
		change("another identity", "release.yml", "release.yml@refs/heads/main", "release.yml@refs/heads/dev"),
		change("any identity", "release.yml", `--certificate-identity "$IDENTITY"`, `--certificate-identity-regexp ".*"`),
		change("not verified", "release.yml", `          gitsign verify-tag --certificate-identity "$IDENTITY" --certificate-oidc-issuer "$ISSUER" "$TAG"`+"\n", ""),
		{name: "verified after the push", file: "release.yml", edits: []edit{
			{`          gitsign verify-tag --certificate-identity "$IDENTITY" --certificate-oidc-issuer "$ISSUER" "$TAG"` + "\n", ""},
			{`            git push --atomic origin "refs/tags/$TAG"` + "\n", `            git push --atomic origin "refs/tags/$TAG"` + "\n" + `          gitsign verify-tag --certificate-identity "$IDENTITY" --certificate-oidc-issuer "$ISSUER" "$TAG"` + "\n"},
		}},
	})
}

// gateName is the check run the release reads as CI's verdict on a commit.
const gateName = "CI passed"

// ciGate: ci.yml has one job named "CI passed", which runs always, needs every other job,
// and passes only when each of them succeeded.
func ciGate(s set) []string {
	var bad []string
	var gates []string
	for id, j := range s.ci.Jobs {
		if j.Name == gateName {
			gates = append(gates, id)
		}
	}
	if len(gates) != 1 {
		return []string{fmt.Sprintf("ci.yml has %d jobs named %q, want one: the release reads that check run", len(gates), gateName)}
	}
	g := s.ci.Jobs[gates[0]]
	if !strings.Contains(g.If, "always()") {
		bad = append(bad, fmt.Sprintf("ci.yml: %q runs under %q, want always(): skipped, it would prove nothing and block nothing", gateName, g.If))
	}
	var others []string
	for id := range s.ci.Jobs {
		if id != gates[0] {
			others = append(others, id)
		}
	}
	slices.Sort(others)
	needs := slices.Sorted(slices.Values(g.Needs))
	if !slices.Equal(needs, others) {
		bad = append(bad, fmt.Sprintf("ci.yml: %q needs %q, want every other job %q", gateName, needs, others))
	}
	judged := false
	for _, st := range g.Steps {
		if strings.Contains(st.Run, "skipped") {
			bad = append(bad, fmt.Sprintf("ci.yml: %q accepts a skipped job", gateName))
		}
		for _, c := range commands(st.Run, "jq") {
			if strings.HasPrefix(c, "jq -e ") && strings.Contains(c, `all(.[]; .result == "success")`) {
				judged = true
			}
		}
	}
	if !judged {
		bad = append(bad, fmt.Sprintf(`ci.yml: %q does not fail unless every job succeeded (jq -e 'all(.[]; .result == "success")')`, gateName))
	}
	return bad
}

func TestCIGateJobNeedsEveryJob(t *testing.T) {
	holds(t, ciGate, []mutation{
		change("renamed", "ci.yml", "name: CI passed", "name: CI Passed"),
		change("two of them", "ci.yml", "name: .ci/run", "name: CI passed"),
		change("not always", "ci.yml", "    if: always()\n", ""),
		change("a job it does not wait for", "ci.yml", "  ci-passed:\n", "  lint:\n    runs-on: ubuntu-latest\n    permissions: {}\n    steps:\n      - run: \"true\"\n\n  ci-passed:\n"),
		change("skipped passes", "ci.yml", `.result == "success")`, `.result == "success" or .result == "skipped")`),
		change("never fails", "ci.yml", `jq -e 'all(`, `jq 'all(`),
	})
}

// noStoredToken: no checkout keeps the token in .git/config, and the token reaches only
// the steps that call GitHub with it (gh, git push), through their own env.
func noStoredToken(s set) []string {
	var bad []string
	token := regexp.MustCompile(`github\.token|secrets\.GITHUB_TOKEN`)
	for _, w := range []struct {
		file string
		wf   workflow
	}{{"ci.yml", s.ci}, {"release.yml", s.release}} {
		for k, v := range w.wf.Env {
			if token.MatchString(fmt.Sprint(v)) {
				bad = append(bad, fmt.Sprintf("%s: the workflow's env %s holds the token", w.file, k))
			}
		}
	}
	s.each(func(where, _ string, j job) {
		for k, v := range j.Env {
			if token.MatchString(v) {
				bad = append(bad, fmt.Sprintf("%s: the job's env %s holds the token: every step would", where, k))
			}
		}
		for _, st := range j.Steps {
			if strings.HasPrefix(st.Uses, "actions/checkout@") && st.With["persist-credentials"] != "false" {
				bad = append(bad, fmt.Sprintf("%s: checkout keeps the token in .git/config (persist-credentials: false)", where))
			}
			for k, v := range st.With {
				if token.MatchString(v) {
					bad = append(bad, fmt.Sprintf("%s: step %q gives the token to %s (%s)", where, st.Name, st.Uses, k))
				}
			}
			calls := len(commands(st.Run, "gh")) > 0 || len(commands(st.Run, "git push")) > 0
			for k, v := range st.Env {
				if token.MatchString(v) && !calls {
					bad = append(bad, fmt.Sprintf("%s: step %q holds the token in %s but calls no gh or git push", where, st.Name, k))
				}
			}
		}
	})
	return bad
}

func TestCheckoutKeepsNoTokenAndOnlyCallersHoldIt(t *testing.T) {
	holds(t, noStoredToken, []mutation{
		change("CI keeps it", "ci.yml", "persist-credentials: false", "persist-credentials: true"),
		change("the gates keep it", "release.yml", "          persist-credentials: false\n", ""),
		change("the tag job keeps it", "release.yml",
			"only the push step below holds it.\n      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1\n        with:\n          ref: ${{ github.event.workflow_run.head_sha }}\n          fetch-depth: 0\n          persist-credentials: false",
			"only the push step below holds it.\n      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1\n        with:\n          ref: ${{ github.event.workflow_run.head_sha }}\n          fetch-depth: 0"),
		change("in the tag job's env", "release.yml", "      TAG: ${{ needs.gates.outputs.tag }}\n", "      GH_TOKEN: ${{ github.token }}\n      TAG: ${{ needs.gates.outputs.tag }}\n"),
		change("to gitsign's install", "release.yml", "      - name: gitsign\n", "      - name: gitsign\n        env:\n          GH_TOKEN: ${{ github.token }}\n"),
		change("to the checkout", "release.yml", "          fetch-depth: 0\n", "          fetch-depth: 0\n          token: ${{ secrets.GITHUB_TOKEN }}\n"),
	})
}

// leastPermissions: nothing granted at the top, a block on every job, CI reads only, and
// the release writes (contents, id-token) only in the job that pushes.
func leastPermissions(s set) []string {
	var bad []string
	for _, w := range []struct {
		file string
		wf   workflow
	}{{"ci.yml", s.ci}, {"release.yml", s.release}} {
		if g, ok := ghworkflow.Grants(w.wf.Permissions); !ok || len(g) != 0 {
			bad = append(bad, w.file+": the top-level permissions are not {}")
		}
	}
	allowed := map[string]map[string][]string{
		"ci.yml":      {"contents": {"read"}},
		"release.yml": {"contents": {"read", "write"}, "checks": {"read"}, "actions": {"read"}, "id-token": {"write"}},
	}
	s.each(func(where, _ string, j job) {
		g, ok := ghworkflow.Grants(j.Permissions)
		if !ok {
			bad = append(bad, where+": no permissions block of its own (a mapping)")
			return
		}
		file, _, _ := strings.Cut(where, ":")
		for scope, access := range g {
			if !slices.Contains(allowed[file][scope], access) {
				bad = append(bad, fmt.Sprintf("%s: %s: %s is more than %s needs", where, scope, access, file))
			}
			if access == "write" && !pushes(j) {
				bad = append(bad, fmt.Sprintf("%s: %s: write, in a job that pushes nothing", where, scope))
			}
		}
	})
	return bad
}

func TestPermissionsLeast(t *testing.T) {
	holds(t, leastPermissions, []mutation{
		change("write-all at the top", "release.yml", "permissions: {}\n", "permissions: write-all\n"),
		change("none at the top", "ci.yml", "permissions: {}\n\n", ""),
		change("read at the top", "ci.yml", "permissions: {}\n\n", "permissions:\n  contents: read\n\n"),
		change("the gates may write", "release.yml", "      contents: read\n      checks: read", "      contents: write\n      checks: read"),
		change("the gates may sign", "release.yml", "      checks: read #", "      id-token: write\n      checks: read #"),
		change("CI may write packages", "ci.yml", "      contents: read\n", "      contents: read\n      packages: write\n"),
		change("the gate job without a block", "ci.yml", "    permissions: {}\n    steps:", "    steps:"),
		change("read-all", "ci.yml", "    permissions: {}\n    steps:", "    permissions: read-all\n    steps:"),
	})
}

// concurrencyRule: CI cancels superseded runs of pull requests only, and never a pending run
// of main (one group per commit there); releases run one at a time, never cancelled.
func concurrencyRule(s set) []string {
	var bad []string
	if got := s.ci.Concurrency.CancelInProgress; got != "${{ github.event_name == 'pull_request' }}" {
		bad = append(bad, fmt.Sprintf("ci.yml cancels in progress when %q, want pull requests only", got))
	}
	if !strings.Contains(s.ci.Concurrency.Group, "github.sha") {
		bad = append(bad, fmt.Sprintf("ci.yml's group %q is not per commit outside pull requests: a newer push would cancel a pending run of main", s.ci.Concurrency.Group))
	}
	if c := s.release.Concurrency; c.Group != "shipyard-release" || c.CancelInProgress != "false" {
		bad = append(bad, fmt.Sprintf("release.yml's concurrency %+v, want the group shipyard-release, never cancelled", c))
	}
	return bad
}

func TestConcurrencyCancelsPullRequestsOnly(t *testing.T) {
	holds(t, concurrencyRule, []mutation{
		change("CI cancels main's runs", "ci.yml", "cancel-in-progress: ${{ github.event_name == 'pull_request' }}", "cancel-in-progress: true"),
		change("main's runs grouped by branch", "ci.yml", "|| github.sha }}", "|| github.ref }}"),
		change("a release cancelled", "release.yml", "cancel-in-progress: false", "cancel-in-progress: true"),
		change("releases side by side", "release.yml", "group: shipyard-release", "group: release-${{ github.run_id }}"),
	})
}

// goOfGoMod: the release builds with go.mod's Go (its newest patch) and reads no Actions
// cache, which another run could have written.
func goOfGoMod(s set) []string {
	var bad []string
	n := 0
	s.each(func(where, _ string, j job) {
		for _, st := range j.Steps {
			if !strings.HasPrefix(st.Uses, "actions/setup-go@") {
				continue
			}
			n++
			if st.With["go-version"] != s.goMinor+".x" && st.With["go-version-file"] != "go.mod" {
				bad = append(bad, fmt.Sprintf("%s: setup-go installs %q, want go.mod's %s.x", where, st.With["go-version"], s.goMinor))
			}
			if st.With["cache"] != "false" {
				bad = append(bad, where+": setup-go restores an Actions cache (cache: false)")
			}
		}
	})
	if n == 0 {
		bad = append(bad, "no job sets up Go")
	}
	return bad
}

func TestGoIsGoModsWithoutCache(t *testing.T) {
	holds(t, goOfGoMod, []mutation{
		change("an older Go", "release.yml", `go-version: "1.26.x"`, `go-version: "1.25.x"`),
		change("cached", "release.yml", "cache: false", "cache: true"),
		change("cached by default", "release.yml", "          cache: false\n", ""),
	})
}

// runnerVariable is a variable a script reads from the runner's environment, if set.
var runnerVariable = regexp.MustCompile(`\$\{([A-Z][A-Z0-9_]*):-\}`)

// docsTell: docs/releasing-shipyard.md gives users the verify command with the workflow's
// identity and issuer, names the runner's labels and its SHIPYARD_SHARED, and documents no
// push that is not atomic.
func docsTell(s set) []string {
	var bad []string
	doc := s.text["releasing-shipyard.md"]
	var id, issuer string
	for _, j := range s.release.Jobs {
		if j.Env["IDENTITY"] != "" {
			id, issuer = j.Env["IDENTITY"], j.Env["ISSUER"]
		}
	}
	want := fmt.Sprintf("gitsign verify-tag --certificate-identity %s --certificate-oidc-issuer %s", id, issuer)
	if id == "" || !strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(doc, "\\\n", " ")), " "), want) {
		bad = append(bad, fmt.Sprintf("releasing-shipyard.md does not give %q", want))
	}
	for _, j := range s.ci.Jobs {
		var labels []string
		if j.RunsOn.Decode(&labels) != nil || !slices.Contains(labels, "self-hosted") {
			continue
		}
		for _, l := range labels {
			if l != "self-hosted" && !strings.Contains(doc, "`"+l+"`") {
				bad = append(bad, fmt.Sprintf("releasing-shipyard.md does not name the runner label `%s`", l))
			}
		}
		for _, st := range j.Steps {
			for _, m := range runnerVariable.FindAllStringSubmatch(st.Run, -1) {
				if !strings.Contains(doc, "`"+m[1]+"`") {
					bad = append(bad, fmt.Sprintf("releasing-shipyard.md does not say what the runner's `%s` is", m[1]))
				}
			}
		}
	}
	for _, c := range commands(doc, "git push") {
		if !slices.Contains(strings.Fields(c), "--atomic") {
			bad = append(bad, fmt.Sprintf("releasing-shipyard.md documents %q, not --atomic", c))
		}
	}
	return bad
}

func TestDocsTellTheVerifyCommandAndTheRunner(t *testing.T) {
	holds(t, docsTell, []mutation{
		change("the workflow's identity moved", "release.yml", "release.yml@refs/heads/main", "release.yml@refs/heads/release"),
		change("the issuer", "releasing-shipyard.md", "--certificate-oidc-issuer https://token.actions.githubusercontent.com", "--certificate-oidc-issuer https://accounts.google.com"),
		change("another label", "ci.yml", "[self-hosted, shipyard-engine-kit]", "[self-hosted, shipyard-kit]"),
		change("another variable", "ci.yml", `"${SHIPYARD_SHARED:-}"`, `"${SHIPYARD_KIT:-}"`),
		change("a push that is not atomic", "releasing-shipyard.md", "\n## ", "\n```sh\ngit push origin main vX.Y.Z\n```\n\n## "),
	})
}
