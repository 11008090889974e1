package githubactions

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"dagger/shipyard/pipelines/ci"
)

// teskJobNames reads a workflow's job names as GitHub shows them, a matrix job expanded
// over its (static) matrix values: branch protection rules are written for these names.
func teskJobNames(t *testing.T, path string) []string {
	t.Helper()
	raw := readRaw(t, path)
	var names []string
	for id, j := range raw.Jobs {
		name := j.Name
		if name == "" {
			name = id
		}
		values := j.Strategy.Matrix["image"]
		if strings.Contains(name, "${{ matrix.image }}") && len(values) > 0 {
			for _, v := range values {
				names = append(names, strings.ReplaceAll(name, "${{ matrix.image }}", v))
			}
			continue
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func TestTeskCoreCIHasTheSeedsJobs(t *testing.T) {
	got := teskJobNames(t, filepath.Join("tesk-core", "ci.yml"))
	for _, want := range []string{
		"PR title", "Lint", "Test (Python ${{ matrix.python }})", "End-to-end test", "Docs",
		"Scan image (taskmaster)", "Scan image (filer)", "CI passed",
		"Push image (taskmaster)", "Push image (filer)", "Publish image (taskmaster)", "Publish image (filer)",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("ci.yml has no job %q (the seed's name; branch protection keys on it); jobs: %q", want, got)
		}
	}
}

func TestTeskCoreCITriggersAndPermissions(t *testing.T) {
	raw := readRaw(t, filepath.Join("tesk-core", "ci.yml"))
	pr := raw.On["pull_request"]
	if !slices.Equal(pr.Types, []string{"opened", "edited", "synchronize", "reopened"}) {
		t.Errorf("pull_request types %q: the title check must run again when the title is edited", pr.Types)
	}
	if !slices.Equal(pr.Branches, []string{"dev"}) || !slices.Equal(raw.On["push"].Branches, []string{"dev"}) {
		t.Errorf("triggers %+v: want pull requests to dev and pushes to dev", raw.On)
	}
	w := readWorkflow(t, filepath.Join("tesk-core", "ci.yml"))
	for id, j := range w.Jobs {
		perms := jobPermissions(t, j)
		want := map[string]string{"contents": "read"}
		switch id {
		case "pr-title", "ci-passed":
			want = map[string]string{}
		case "publish-images":
			want = map[string]string{"contents": "read", "id-token": "write"}
		}
		if len(perms) != len(want) {
			t.Errorf("job %s: permissions %v, want %v", id, perms, want)
			continue
		}
		for k, v := range want {
			if perms[k] != v {
				t.Errorf("job %s: permissions %v, want %v", id, perms, want)
			}
		}
		// Every job but the skipped-on-pull-request ones runs on every event: no job may skip
		// itself on an edit, or "CI passed" would pass for code that failed.
		if strings.Contains(j.If, "edited") {
			t.Errorf("job %s: if %q skips on edits", id, j.If)
		}
	}
	gate := raw.Jobs["ci-passed"]
	for id := range raw.Jobs {
		if id != "ci-passed" && !raw.after(id, "ci-passed") && !slices.Contains(gate.Needs, id) {
			t.Errorf("CI passed does not wait for job %s", id)
		}
	}
}

// after is whether job id runs after job gate: it needs gate, directly or through the jobs
// it needs.
func (w rawWorkflow) after(id, gate string) bool {
	for _, n := range w.Jobs[id].Needs {
		if n == gate || w.after(n, gate) {
			return true
		}
	}
	return false
}

// The test matrix comes from pyproject.toml through python-versions, not a list in the
// workflow; and Codecov gets each version's coverage with a token only its step sees.
func TestTeskCoreCITestMatrixAndCodecov(t *testing.T) {
	raw := readRaw(t, filepath.Join("tesk-core", "ci.yml"))
	test := raw.Jobs["test"]
	if got := test.Strategy.MatrixRaw["python"]; got != "${{ fromJSON(needs.matrix.outputs.python) }}" {
		t.Errorf("test matrix python = %q, want it from the matrix job's python-versions", got)
	}
	if !slices.Contains(test.Needs, "matrix") {
		t.Error("test does not need the matrix job")
	}
	w := readWorkflow(t, filepath.Join("tesk-core", "ci.yml"))
	var versions string
	for _, s := range w.Jobs["matrix"].Steps {
		if strings.Contains(s.Run, "python-versions") {
			versions = s.Run
		}
	}
	if !strings.Contains(versions, `--source=. python-versions`) || !strings.Contains(versions, "GITHUB_OUTPUT") {
		t.Errorf("matrix job: %q", versions)
	}

	codecov := 0
	for id, steps := range codecovSteps(t, w) {
		for _, s := range steps {
			codecov++
			if id != "test" {
				t.Errorf("job %s uploads to Codecov", id)
			}
			if s.With["token"] != "${{ secrets.CODECOV_TOKEN }}" || s.With["files"] != "coverage/${{ matrix.python }}/coverage.xml" {
				t.Errorf("codecov step with %v", s.With)
			}
		}
	}
	if codecov != 1 {
		t.Fatalf("%d Codecov steps, want 1 in the test job", codecov)
	}
	// The reports are uploaded before the verdict fails the job.
	steps := w.Jobs["test"].Steps
	last := steps[len(steps)-1]
	if last.Run != "jq -e .passed coverage/verdict.json" {
		t.Errorf("the test job's last step is %q, want the verdict", last.Run)
	}
	for _, s := range steps[:len(steps)-1] {
		if (strings.HasPrefix(s.Uses, "codecov/") || strings.HasPrefix(s.Uses, "actions/upload-artifact@")) && !strings.HasPrefix(raw.stepIf(t, "test", s.Uses), "always()") {
			t.Errorf("step %s runs only on success", s.Uses)
		}
	}
}

// Every job that exports reports fails on their verdict only after uploading them.
func TestReportsAreUploadedBeforeTheVerdict(t *testing.T) {
	w := readWorkflow(t, filepath.Join("tesk-core", "ci.yml"))
	for _, id := range []string{"test", "scan"} {
		steps := w.Jobs[id].Steps
		verdictAt, uploadAt := -1, -1
		for i, s := range steps {
			if strings.HasPrefix(s.Run, "jq -e .passed") {
				verdictAt = i
			}
			if strings.HasPrefix(s.Uses, "actions/upload-artifact@") {
				uploadAt = i
			}
		}
		if verdictAt < 0 || uploadAt < 0 || verdictAt < uploadAt {
			t.Errorf("job %s: upload at step %d, verdict at step %d: upload the reports first, then fail on verdict.json", id, uploadAt+1, verdictAt+1)
		}
	}
}

// The weekly scan reads tesk-core's own .trivyignore.yaml: it checks out the repository and
// passes --source=. (without it, -m would point --source at Shipyard's tree).
func TestWeeklyScanReadsTheCallersTree(t *testing.T) {
	w := readWorkflow(t, filepath.Join("tesk-core", "scan.yml"))
	for id, j := range w.Jobs {
		checkedOut := false
		for _, s := range j.Steps {
			if strings.HasPrefix(s.Uses, "actions/checkout@") {
				checkedOut = true
			}
			calls, err := daggerCalls(id, s.Run)
			if err != nil {
				t.Fatal(err)
			}
			for _, words := range calls {
				c, err := parseCall(id, words)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(c.constructor, "source") || !checkedOut {
					t.Errorf("scan.yml job %s: %s without a checkout and --source=.", id, c.function)
				}
			}
		}
	}
}

// The seed's Publish release job asks for exactly contents: write; the other release jobs
// keep their own, minimal permissions.
func TestTeskCoreReleasePermissions(t *testing.T) {
	w := readWorkflow(t, filepath.Join("tesk-core", "release.yml"))
	raw := readRaw(t, filepath.Join("tesk-core", "release.yml"))
	found := false
	for id, j := range w.Jobs {
		calls := false
		for _, st := range j.Steps {
			calls = calls || strings.Contains(st.Run, "release-publish-release")
		}
		if !calls {
			continue
		}
		found = true
		if raw.Jobs[id].Name != "Publish release" {
			t.Errorf("job %s is named %q, want the seed's \"Publish release\"", id, raw.Jobs[id].Name)
		}
		if perms := jobPermissions(t, j); len(perms) != 1 || perms["contents"] != "write" {
			t.Errorf("job %s: permissions %v, want exactly contents: write", id, perms)
		}
	}
	if !found {
		t.Fatal("release.yml has no job calling release-publish-release")
	}
}

// Each dev "Push platform image (…)", "Push image (…)" and "Publish image (…)" job handles
// its own image: it pushes one image, passes on only that image's digests, verifies the signature and provenance
// against this workflow's identity before any tag moves, and curls no token.
func TestTeskCoreDevImagesPerImage(t *testing.T) {
	w := readWorkflow(t, filepath.Join("tesk-core", "ci.yml"))
	var publish []string
	for job, call := range map[string]string{"push-platform": `push-platform-by-digest --image "$IMAGE"`, "push-images": `assemble-index --image "$IMAGE"`} {
		var push []string
		for _, st := range w.Jobs[job].Steps {
			push = append(push, st.Run)
		}
		if run := strings.Join(push, "\n"); !strings.Contains(run, call) {
			t.Errorf("job %s does not push its own image only:\n%s", job, run)
		}
	}
	for _, st := range w.Jobs["publish-images"].Steps {
		if st.Run == "" {
			continue
		}
		publish = append(publish, st.Run)
		if d := st.Env["DIGESTS"]; d != "" && d != "${{ needs.push-images.outputs[matrix.image] }}" {
			t.Errorf("Publish image takes DIGESTS %q, want its own image's", d)
		}
	}
	run := strings.Join(publish, "\n")
	sign, verify, tag := strings.Index(run, " sign --digests"), strings.Index(run, " verify --image"), strings.Index(run, " tag-images ")
	if sign < 0 || verify < sign || tag < verify {
		t.Errorf("Publish image does not attest and sign, then verify, then tag:\n%s", run)
	}
	if !strings.Contains(run, `identity="^`) || !strings.Contains(run, `.github/workflows/ci.yml@refs/heads/dev`) || !strings.Contains(run, `--identity "$identity"`) {
		t.Errorf("verify is not anchored to this workflow's identity on dev:\n%s", run)
	}
	for id, j := range w.Jobs {
		for _, st := range j.Steps {
			if strings.Contains(st.Run, "curl") || strings.Contains(st.Run, "--oidc-token") {
				t.Errorf("ci.yml job %s fetches an identity token itself:\n%s", id, st.Run)
			}
		}
	}
}

// The release builds each platform in its own job on a runner of that platform, never
// under emulation, and one job assembles the indexes from every platform job's output:
// each platform of the release (with-platforms' default) has a leg, an arm64 leg runs on
// an arm64 runner, each leg writes only its own output, and the assemble job reads them all.
func TestTeskCoreReleaseBuildsEachPlatformOnItsOwnRunner(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("tesk-core", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			RunsOn   string            `yaml:"runs-on"`
			Needs    needs             `yaml:"needs"`
			Outputs  map[string]string `yaml:"outputs"`
			Strategy struct {
				Matrix struct {
					Include []map[string]string `yaml:"include"`
				} `yaml:"matrix"`
			} `yaml:"strategy"`
			Steps []struct {
				Env map[string]string `yaml:"env"`
				Run string            `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	var platformJob, assembleJob string
	for id, j := range wf.Jobs {
		for _, st := range j.Steps {
			switch {
			case strings.Contains(st.Run, "release-push-platform"):
				platformJob = id
			case strings.Contains(st.Run, "release-assemble"):
				assembleJob = id
			case strings.Contains(st.Run, "release-push "):
				t.Errorf("job %s builds every platform on one runner (release-push)", id)
			}
		}
	}
	if platformJob == "" || assembleJob == "" {
		t.Fatalf("release.yml: platform job %q, assemble job %q", platformJob, assembleJob)
	}
	pj, aj := wf.Jobs[platformJob], wf.Jobs[assembleJob]
	if pj.RunsOn != "${{ matrix.runner }}" {
		t.Errorf("the platform job runs on %q, not its leg's runner", pj.RunsOn)
	}
	var legs []string
	var assembled string
	for _, st := range aj.Steps {
		if strings.Contains(st.Run, "release-assemble") {
			assembled = st.Run + "\n" + fmt.Sprint(st.Env)
		}
	}
	for _, leg := range pj.Strategy.Matrix.Include {
		p, runner, out := leg["platform"], leg["runner"], leg["output"]
		legs = append(legs, p)
		arch := p[strings.LastIndex(p, "/")+1:]
		if onArm := strings.HasSuffix(runner, "-arm"); onArm != (arch == "arm64") {
			t.Errorf("the %s leg runs on %s: build each platform on a runner of that platform", p, runner)
		}
		if pj.Outputs[out] != "${{ steps.push.outputs."+out+" }}" {
			t.Errorf("the %s leg's output %q is not its own: %v", p, out, pj.Outputs)
		}
		if !strings.Contains(assembled, "${{ needs."+platformJob+".outputs."+out+" }}") {
			t.Errorf("the assemble job does not read the %s leg's output:\n%s", p, assembled)
		}
	}
	var want []string
	for _, p := range ci.DefaultPlatforms() {
		want = append(want, string(p))
	}
	if !slices.Equal(legs, want) {
		t.Errorf("platform legs %v, want one per platform the release publishes, %v", legs, want)
	}
	if !slices.Contains(aj.Needs, platformJob) {
		t.Errorf("the assemble job needs %v, not the platform job", aj.Needs)
	}
}

// On pushes to dev, each image is built for each platform in its own job on a runner of
// that platform, never under emulation, and one job per image assembles its index from
// that image's platform jobs: each platform images are published for (with-platforms'
// default) has a leg per image, an arm64 leg runs on an arm64 runner, each leg writes only
// its own image and platform's output, and each assemble leg reads its image's outputs of
// every platform.
func TestTeskCoreDevBuildsEachPlatformOnItsOwnRunner(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("tesk-core", "ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			RunsOn   string            `yaml:"runs-on"`
			Needs    needs             `yaml:"needs"`
			Outputs  map[string]string `yaml:"outputs"`
			Env      map[string]string `yaml:"env"`
			Strategy struct {
				Matrix struct {
					Image    []string            `yaml:"image"`
					Platform []string            `yaml:"platform"`
					Include  []map[string]string `yaml:"include"`
				} `yaml:"matrix"`
			} `yaml:"strategy"`
			Steps []struct {
				Env map[string]string `yaml:"env"`
				Run string            `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	var platformJob, assembleJob, assembleRun string
	for id, j := range wf.Jobs {
		for _, st := range j.Steps {
			switch {
			case strings.Contains(st.Run, "push-platform-by-digest"):
				platformJob = id
			case strings.Contains(st.Run, "assemble-index"):
				assembleJob, assembleRun = id, st.Run+"\n"+fmt.Sprint(st.Env)
				for k, v := range st.Env {
					if strings.Contains(v, ".outputs[") && !strings.Contains(st.Run, "$"+k) {
						t.Errorf("the assemble job reads %s = %s but does not pass it on", k, v)
					}
				}
			case strings.Contains(st.Run, "push-by-digest"):
				t.Errorf("job %s builds every platform on one runner (push-by-digest)", id)
			}
		}
	}
	if platformJob == "" || assembleJob == "" {
		t.Fatalf("ci.yml: platform job %q, assemble job %q", platformJob, assembleJob)
	}
	pj, aj := wf.Jobs[platformJob], wf.Jobs[assembleJob]
	if pj.RunsOn != "${{ matrix.runner }}" {
		t.Errorf("the platform job runs on %q, not its leg's runner", pj.RunsOn)
	}
	if pj.Env["OUTPUT"] != "${{ matrix.image }}_${{ matrix.arch }}" || !strings.Contains(pj.Steps[len(pj.Steps)-1].Run, `echo "$OUTPUT=`) {
		t.Errorf("the platform job's legs do not each write the output of their image and platform: OUTPUT=%q", pj.Env["OUTPUT"])
	}
	var want []string
	for _, p := range ci.DefaultPlatforms() {
		want = append(want, string(p))
	}
	if !slices.Equal(pj.Strategy.Matrix.Platform, want) {
		t.Errorf("platform legs %v, want one per platform the images are published for, %v", pj.Strategy.Matrix.Platform, want)
	}
	if !slices.Equal(pj.Strategy.Matrix.Image, aj.Strategy.Matrix.Image) || len(aj.Strategy.Matrix.Image) == 0 {
		t.Errorf("the platform job builds images %v, the assemble job assembles %v", pj.Strategy.Matrix.Image, aj.Strategy.Matrix.Image)
	}
	for _, p := range want {
		var leg map[string]string
		for _, inc := range pj.Strategy.Matrix.Include {
			if inc["platform"] == p {
				leg = inc
			}
		}
		arch := p[strings.LastIndex(p, "/")+1:]
		if leg == nil || leg["arch"] != arch {
			t.Errorf("the %s legs have no runner or arch of their own: %v", p, leg)
			continue
		}
		if onArm := strings.HasSuffix(leg["runner"], "-arm"); onArm != (arch == "arm64") {
			t.Errorf("the %s legs run on %s: build each platform on a runner of that platform", p, leg["runner"])
		}
		for _, img := range pj.Strategy.Matrix.Image {
			out := img + "_" + arch
			if pj.Outputs[out] != "${{ steps.push.outputs."+out+" }}" {
				t.Errorf("the %s %s leg's output %q is not its own: %v", img, p, out, pj.Outputs)
			}
		}
		if !strings.Contains(assembleRun, "${{ needs."+platformJob+".outputs[format('{0}_"+arch+"', matrix.image)] }}") {
			t.Errorf("the assemble job does not read its image's %s output:\n%s", p, assembleRun)
		}
	}
	if !slices.Contains(aj.Needs, platformJob) {
		t.Errorf("the assemble job needs %v, not the platform job", aj.Needs)
	}
}

// The seed's release waits for two approvals in the environment release: pushing and
// publishing. GitHub asks for a review of each job that names the environment; the legs of
// one matrix job wait together and are approved at once. So exactly two jobs name release:
// the one that pushes (release-push-platform) and the one that publishes (release-publish),
// and the scan between them holds no credential.
func TestTeskCoreReleaseHasTheSeedsTwoApprovals(t *testing.T) {
	w := readWorkflow(t, filepath.Join("tesk-core", "release.yml"))
	approvals := map[string]string{}
	for id, j := range w.Jobs {
		runs := ""
		for _, st := range j.Steps {
			runs += st.Run
		}
		if j.Environment.Value == "release" {
			switch {
			case strings.Contains(runs, "release-push-platform"):
				approvals["push"] = id
			case strings.Contains(runs, "release-publish "):
				approvals["publish"] = id
			default:
				t.Errorf("job %s waits for an approval in release besides pushing and publishing", id)
			}
		}
		if strings.Contains(runs, "release-scan") && (j.Environment.Kind != 0 || len(jobPermissions(t, j)) != 0) {
			t.Errorf("the scan job %s holds an environment or permissions", id)
		}
	}
	if len(approvals) != 2 {
		t.Errorf("approvals %v: want one to push, one to publish", approvals)
	}
}
