package doctor

import (
	"fmt"
	"slices"
	"strings"
)

// A Cloudcoil model repository's settings, from docs/cloudcoil-model-release.md.
const (
	// AutoPublishVar switches model-release from drafts to publishing.
	AutoPublishVar = "AUTO_PUBLISH_MODELS"
	// CITokenSecret is the token model-release and the wrappers use.
	CITokenSecret = "CI_GITHUB_TOKEN"
	// PublishWorkflow uploads a published release to PyPI.
	PublishWorkflow = ".github/workflows/pypi_publish.yml"
	// PublishAction is the upload step's action.
	PublishAction = "pypa/gh-action-pypi-publish"
)

// ModelFacts is what the Cloudcoil model checks look at.
type ModelFacts struct {
	Repo            string            `json:"repo"`
	Variables       map[string]string `json:"variables"`
	VariablesDenied bool              `json:"variables_denied,omitempty"`
	// SecretSources maps where CI_GITHUB_TOKEN can come from (repository,
	// organization, environment <name>) to whether that place has it; Denied lists the
	// places the token may not read.
	SecretSources map[string]bool `json:"secret_sources"`
	SecretsDenied []string        `json:"secrets_denied,omitempty"`
	Publish       File            `json:"publish_workflow"`
	// Distribution is the project name of pyproject.toml ("" when unknown).
	Distribution string `json:"distribution,omitempty"`
	// PyPI is the distribution's newest upload, as PyPI shows it.
	PyPI PyPIUpload `json:"pypi"`
}

// EvaluateGenerator decides the checks of Cloudcoil's generator repository, where
// model-versions and update-repos run with CI_GITHUB_TOKEN: the token's place.
func EvaluateGenerator(f ModelFacts) Report {
	return Report{Repo: f.Repo, System: CloudcoilGenerator, Findings: []Finding{ciToken(f)}}
}

// EvaluateModel decides every Cloudcoil model repository check.
func EvaluateModel(f ModelFacts) Report {
	r := Report{Repo: f.Repo, System: CloudcoilModel}
	r.Findings = append(r.Findings, autoPublish(f), ciToken(f), publishWorkflow(f), trustedPublisher(f))
	return r
}

// autoPublish: AUTO_PUBLISH_MODELS is absent (drafts) or a boolean the wrapper passes on
// as --auto-publish.
func autoPublish(f ModelFacts) Finding {
	const check = "auto-publish-variable"
	why := "the wrapper passes the variable as --auto-publish=\"${AUTO_PUBLISH_MODELS:-false}\": anything but true or false fails every release run"
	if f.VariablesDenied {
		return cannot(check, "the repository variables", permVariables, why)
	}
	v, ok := f.Variables[AutoPublishVar]
	switch {
	case !ok:
		return pass(check, AutoPublishVar+" is not set: releases stay drafts until a maintainer publishes them")
	case v == "false":
		return pass(check, AutoPublishVar+"=false: releases stay drafts")
	case v == "true":
		return pass(check, AutoPublishVar+"=true: releases are published after validation; this is safe only once the PyPI trusted publisher is configured (see trusted-publisher)")
	}
	return fail(check, fmt.Sprintf("%s is %q, neither true nor false", AutoPublishVar, v), why,
		fmt.Sprintf("https://github.com/%s/settings/variables/actions → %s: set it to true or false, or delete it; or `gh variable set %s --body true --repo %s`", f.Repo, AutoPublishVar, AutoPublishVar, f.Repo))
}

// The places CI_GITHUB_TOKEN can come from, as ModelFacts.SecretSources names them.
const (
	// AutomationEnv is the environment the wrappers' jobs that hold CI_GITHUB_TOKEN run in.
	AutomationEnv    = "automation"
	sourceAutomation = "the environment " + AutomationEnv
	sourceRepository = "the repository"
	sourceOrg        = "the organisation"
)

// ciToken: CI_GITHUB_TOKEN is a secret of the environment automation, as the wrappers
// expect, and not a repository or organisation secret, which every workflow of the
// repository (a pull request's included) can read.
func ciToken(f ModelFacts) Finding {
	const check = "ci-github-token"
	why := "the token pushes branches, writes releases and opens pull requests: kept in the environment automation, only the jobs that name it (on the branches its policy allows) get it; as a repository or organisation secret every workflow of the repository can read it"
	var exposed []string
	for _, src := range []string{sourceRepository, sourceOrg} {
		if f.SecretSources[src] {
			exposed = append(exposed, src)
		}
	}
	if len(exposed) > 0 {
		return fail(check, CITokenSecret+" is a secret of "+strings.Join(exposed, " and "), why,
			fmt.Sprintf("keep it only in the environment %s: `gh secret set %s --env %s --repo %s`, then `gh secret delete %s --repo %s` (an organisation secret: stop sharing it with the repository)",
				AutomationEnv, CITokenSecret, AutomationEnv, f.Repo, CITokenSecret, f.Repo))
	}
	denied := slices.Clone(f.SecretsDenied)
	if f.SecretSources[sourceAutomation] {
		if len(denied) > 0 {
			return cannot(check, "whether "+CITokenSecret+" is also a secret of "+strings.Join(denied, ", "), permSecrets, why)
		}
		return pass(check, CITokenSecret+" is a secret of the environment "+AutomationEnv+" only (names only; values are never read)")
	}
	if len(denied) > 0 {
		return cannot(check, "the secrets of "+strings.Join(denied, ", "), permSecrets+" and "+permEnvironments, why)
	}
	return fail(check, CITokenSecret+" is not a secret of the environment "+AutomationEnv, why,
		fmt.Sprintf("create the environment %s (deployments from main only) and keep the token there: `gh secret set %s --env %s --repo %s`", AutomationEnv, CITokenSecret, AutomationEnv, f.Repo))
}

// publishWorkflow: pypi_publish.yml exists and only its upload job may mint an identity
// token.
func publishWorkflow(f ModelFacts) Finding {
	const check = "pypi-publish-workflow"
	why := "only the upload job, which runs no code of the repository, may mint the PyPI identity token; a build step with id-token: write could publish anything"
	if f.Publish.Denied {
		return cannot(check, PublishWorkflow, permContents, why)
	}
	fix := "take examples/github-actions/cloudcoil/pypi_publish.yml: top-level `permissions: {}`, the build job with `contents: read`, and `id-token: write` only in the job that runs " + PublishAction
	if !f.Publish.Found {
		return fail(check, PublishWorkflow+" does not exist", "the published release is never uploaded to PyPI", fix)
	}
	w, err := parseWorkflow(PublishWorkflow, []byte(f.Publish.Content))
	if err != nil {
		return fail(check, err.Error(), why, "fix the YAML of "+PublishWorkflow)
	}
	top, _ := grantsIDToken(w.Permissions)
	var problems []string
	if top {
		problems = append(problems, "the workflow's permissions grant id-token: write to every job")
	}
	uploads := 0
	for _, name := range w.jobNames() {
		j := w.Jobs[name]
		if j == nil {
			continue
		}
		upload := slices.ContainsFunc(j.Steps, func(s step) bool { return strings.HasPrefix(s.Uses, PublishAction+"@") })
		grants, defined := grantsIDToken(j.Permissions)
		if !defined {
			grants = top
		}
		switch {
		case upload && grants:
			uploads++
		case upload:
			problems = append(problems, fmt.Sprintf("%s:%d: the upload job %s lacks id-token: write", PublishWorkflow, j.line, name))
		case grants && !top:
			problems = append(problems, fmt.Sprintf("%s:%d: job %s does not upload but has id-token: write", PublishWorkflow, j.line, name))
		}
	}
	if uploads == 0 && len(problems) == 0 {
		problems = append(problems, "no job uploads with "+PublishAction)
	}
	if len(problems) > 0 {
		return fail(check, strings.Join(problems, "; "), why, fix)
	}
	return pass(check, PublishWorkflow+" grants id-token: write only to its upload job")
}

// PublishWorkflowFile is the workflow file a trusted publisher names for the upload.
const PublishWorkflowFile = "pypi_publish.yml"

// trustedPublisher compares the identities PyPI recorded for the files of the
// distribution's newest version (each file's provenance, every attestation bundle of it)
// with where the repository's upload job now runs: the trusted publishers themselves are
// settings of the PyPI project, which no API shows, but an upload one accepted shows the
// repository, workflow and environment it allowed. A publisher that names an environment
// refuses uploads from any other; one that names none accepts any run of the workflow,
// which fails. The worst of the files' verdicts is the check's: one looser publisher among
// them is enough. A publisher that uploaded none of them stays unseen, and the summary
// says so.
func trustedPublisher(f ModelFacts) Finding {
	pc := newPublisherCheck(f)
	up := f.PyPI
	switch {
	case !up.Read:
		return pc.manual("PyPI's trusted publisher is a setting of the PyPI project; without the distribution's name (pyproject.toml's [project] name) its uploads cannot be read")
	case up.Error != "":
		return pc.manual("PyPI could not be read, so the newest upload's publisher is unknown: " + up.Error)
	case !up.Exists:
		return pc.manual(pc.project + " is not on PyPI yet: its first upload needs a pending publisher, which no API shows")
	case len(up.Files) == 0:
		return pc.manual(fmt.Sprintf("%s of %s has no files on PyPI (all deleted), so no publisher can be read", pc.project, up.Version))
	}
	var verdicts []Finding
	var passed []Publisher
	for _, file := range up.Files {
		if len(file.Publishers) == 0 {
			verdicts = append(verdicts, pc.manual(fmt.Sprintf("%s of %s has no provenance (uploaded with a token, or before PyPI recorded publishers), so its publisher cannot be read", file.Name, up.Version)))
		}
		for _, pub := range file.Publishers {
			v := pc.judge(file.Name, pub)
			verdicts = append(verdicts, v)
			if v.Status == Pass && !slices.Contains(passed, pub) {
				passed = append(passed, pub)
			}
		}
	}
	if up.Unread > 0 {
		verdicts = append(verdicts, pc.manual(fmt.Sprintf("%d more files of %s were not read (doctor reads the provenance of %d), so a publisher of theirs is unknown", up.Unread, up.Version, maxPyPIFiles)))
	}
	for _, worst := range []Status{Fail, Manual} {
		if found := worstOf(verdicts, worst); found != nil {
			return *found
		}
	}
	return pass(pc.check, pc.passedSummary(passed))
}

// publisherCheck is what the trusted-publisher check knows of the project and of the
// upload job, for its verdicts.
type publisherCheck struct {
	f                           ModelFacts
	check, project, settings    string
	owner, name, env, want, why string
	jobKnown                    bool
}

func newPublisherCheck(f ModelFacts) publisherCheck {
	pc := publisherCheck{f: f, check: "trusted-publisher", project: f.Distribution}
	if pc.project == "" {
		pc.project = "<distribution>"
	}
	pc.owner, pc.name, _ = strings.Cut(f.Repo, "/")
	pc.env, pc.jobKnown = uploadEnvironment(f)
	pc.settings = fmt.Sprintf("https://pypi.org/manage/project/%s/settings/publishing/", pc.project)
	pc.want = fmt.Sprintf("owner %s, repository %s, workflow %s, environment %s", pc.owner, pc.name, PublishWorkflowFile, orNone(pc.env))
	pc.why = "without it the upload job's identity token is refused and nothing reaches PyPI; keep " + AutoPublishVar + " unset until it is configured"
	return pc
}

func (pc publisherCheck) manual(summary string) Finding {
	return Finding{Check: pc.check, Status: Manual, Summary: summary, Why: pc.why,
		Fix: fmt.Sprintf("check %s (a pending publisher before the first upload): %s", pc.settings, pc.want)}
}

// judge is the verdict on one publisher of one file.
func (pc publisherCheck) judge(file string, pub Publisher) Finding {
	up, check, settings, want := pc.f.PyPI, pc.check, pc.settings, pc.want
	uploaded := fmt.Sprintf("%s of %s was uploaded by %s %s, workflow %s, environment %s", file, up.Version, pub.Kind, pub.Repository, pub.Workflow, orNone(pub.Environment))
	switch {
	case pub.Kind != "GitHub" || !strings.EqualFold(pub.Repository, pc.f.Repo):
		return fail(check, uploaded+", not by "+pc.f.Repo, "a trusted publisher names one repository; uploads from "+pc.f.Repo+" are refused unless a publisher names it",
			"add a GitHub publisher at "+settings+": "+want)
	case pub.Workflow != PublishWorkflowFile:
		return fail(check, uploaded+"; the upload now runs in "+PublishWorkflow, "a trusted publisher names one workflow file; an upload from another file is refused",
			"edit the publisher at "+settings+": "+want)
	case pub.Environment == "":
		return fail(check, uploaded+": the publisher names no environment, so it accepts an upload from any run of "+PublishWorkflowFile+", on any branch", noEnvironmentWhy, noEnvironmentFix(pc.env, settings, pc.owner, pc.name))
	case !pc.jobKnown:
		return pc.manual(uploaded + "; " + PublishWorkflow + " has no upload job to compare its environment with (see pypi-publish-workflow)")
	case pub.Environment != pc.env:
		return fail(check, uploaded+"; the upload job of "+PublishWorkflow+" runs in environment "+orNone(pc.env),
			"a publisher that names an environment refuses uploads from any other",
			"edit the publisher at "+settings+": "+want+"; or run the upload job in environment "+pub.Environment)
	}
	return pass(check, uploaded)
}

// passedSummary is the summary when every file's publishers passed.
func (pc publisherCheck) passedSummary(passed []Publisher) string {
	up := pc.f.PyPI
	names := make([]string, len(up.Files))
	for i, file := range up.Files {
		names[i] = file.Name
	}
	var by []string
	for _, pub := range passed {
		by = append(by, fmt.Sprintf("%s %s, workflow %s, environment %s", pub.Kind, pub.Repository, pub.Workflow, pub.Environment))
	}
	what := names[0] + " of " + up.Version + " was"
	if len(names) > 1 {
		what = fmt.Sprintf("the %d files of %s (%s) were", len(names), up.Version, strings.Join(names, ", "))
	}
	return fmt.Sprintf("%s uploaded by %s, as the upload job runs; a publisher that uploaded no file of %s does not show through PyPI's API, so check the list at %s too",
		what, strings.Join(by, " and "), up.Version, pc.settings)
}

// worstOf is the verdicts of status s as one finding: their summaries, and each different
// why and fix once; nil when none has s.
func worstOf(verdicts []Finding, s Status) *Finding {
	var out *Finding
	var summaries, whys, fixes []string
	for _, v := range verdicts {
		if v.Status != s {
			continue
		}
		if out == nil {
			out = &Finding{Check: v.Check, Status: s}
		}
		summaries = append(summaries, v.Summary)
		if !slices.Contains(whys, v.Why) {
			whys = append(whys, v.Why)
		}
		if !slices.Contains(fixes, v.Fix) {
			fixes = append(fixes, v.Fix)
		}
	}
	if out != nil {
		out.Summary, out.Why, out.Fix = strings.Join(summaries, "; "), strings.Join(whys, "; "), strings.Join(fixes, "; ")
	}
	return out
}

// noEnvironmentWhy is why a trusted publisher that names no environment fails: doctor
// fails closed where a loose publisher would let a publish through.
const noEnvironmentWhy = "PyPI then accepts the identity token of any job of the workflow file, on any branch anyone with push access runs it from: the environment's protection (its required reviewers, the release tags it deploys from) never applies to the upload"

// noEnvironmentFix is the fix for a publisher that names no environment: name the upload
// job's (pypi, the wrapper's, when the job has none, which then needs it too).
func noEnvironmentFix(jobEnv, settings, owner, name string) string {
	env := jobEnv
	if env == "" {
		env = "pypi"
	}
	fix := fmt.Sprintf("edit the publisher at %s: set environment %s (owner %s, repository %s, workflow %s, environment %s)", settings, env, owner, name, PublishWorkflowFile, env)
	if jobEnv == "" {
		fix += fmt.Sprintf("; and run the upload job of %s in environment %s (`environment: %s`, as examples/github-actions/cloudcoil/pypi_publish.yml does), with required reviewers and deployments from release tags only", PublishWorkflow, env, env)
	}
	return fix
}

// uploadEnvironment is the environment of the job of pypi_publish.yml that uploads ("" when
// it has none); found is false when the workflow is missing, unreadable or has no such job.
func uploadEnvironment(f ModelFacts) (env string, found bool) {
	if !f.Publish.Found {
		return "", false
	}
	w, err := parseWorkflow(PublishWorkflow, []byte(f.Publish.Content))
	if err != nil {
		return "", false
	}
	for _, name := range w.jobNames() {
		if j := w.Jobs[name]; j != nil && slices.ContainsFunc(j.Steps, func(s step) bool { return strings.HasPrefix(s.Uses, PublishAction+"@") }) {
			return j.environment(), true
		}
	}
	return "", false
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
