package updaterepos

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"dagger.io/dagger"

	"dagger/shipyard/internal/fanout"
	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/models/genrepo"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/upstreams"
)

// Repository updates: after a source update is merged in Cloudcoil, each integration's
// repository is rendered and generated from the merged source and pushed to the main
// branch of its model repository (cloudcoil/models-<name>), whose own Update Versions
// workflow then releases it. The push is a regular commit on main's head through the Git
// data API (tree, commit, ref update without force): GitHub moves the branch only when
// the commit descends from its head, so a push never discards anyone's commit. The tree
// keeps the generation's modes and bytes (ReadGenerated) and is written in bounded
// requests carrying only what differs from main (github.Calls.WriteTree).

// DefaultModelOwner owns the model repositories.
const DefaultModelOwner = "cloudcoil"

// ModelRepoName is the repository of an integration: models-<name>.
func ModelRepoName(owner, name string) string {
	return owner + "/models-" + name
}

// Model repositories that do not exist yet are created as Cloudcoil's publish-repo-% target
// creates them (gh repo create --add-readme --public --description …, then the topics).
const (
	modelRepoTopicCloudcoil = "cloudcoil"
	modelRepoTopicModels    = "cloudcoil-models"
)

// ModelRepoDescription is the description publish-repo-% gives a model repository.
func ModelRepoDescription(name string) string { return "Generated model repository for " + name }

// CreateRepoCommand is the exact command (publish-repo-%'s) that creates a model
// repository, for a maintainer when the token may not.
func CreateRepoCommand(owner, name string) string {
	repo := ModelRepoName(owner, name)
	return fmt.Sprintf("gh repo create %s --add-readme --public --description %q && gh repo edit --add-topic %s --add-topic %s %s",
		repo, ModelRepoDescription(name), modelRepoTopicCloudcoil, modelRepoTopicModels, repo)
}

// UpdateOptions configure Update.
type UpdateOptions struct {
	// Flow is the function the update is a call of (update-repos), which with each
	// integration's name names its flow in logs and errors: "update-repos keda".
	Flow string
	// Names are the integrations to update; empty means every folder under models/, as
	// the Makefile's publish-all-repos does.
	Names []string
	// Owner owns the model repositories (default DefaultModelOwner).
	Owner string
	// Branch is the branch to push (default "main").
	Branch string
	// SourceRepo is the Cloudcoil repository (owner/name) and SourceBranch its main branch
	// (default "main"); SourceCommit, a full SHA, is the commit of it generated from. It
	// must be SourceBranch's head or descend from the commit the model repository's last
	// generation records (CheckSource); the commit message records it. A dry run may leave
	// it empty, and then skips that check.
	SourceRepo, SourceBranch, SourceCommit string
	// DryRun generates and compares, and pushes nothing.
	DryRun bool
}

// RepoUpdate is what the update of one integration did.
type RepoUpdate struct {
	Name, Repo string
	// Head is main's commit the update read; Commit the one it pushed ("" when none).
	Head, Commit string
	// Unchanged says main already holds exactly the generated tree.
	Unchanged bool
	// Created says the update created the repository; Missing that it does not exist (a
	// dry run, or a token that may not create it).
	Created, Missing bool
	// Untracked says models/upstreams.json leaves the integration out, so model-versions
	// does not follow its upstream.
	Untracked bool
	// Steps are the flow's steps that ran.
	Steps []string
	Err   error
}

// Updates are the outcome of Update, one per integration in the order asked.
type Updates []RepoUpdate

// Err joins the failures, each naming its integration and step; nil when all succeeded.
func (u Updates) Err() error {
	var errs []error
	for _, r := range u {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return errors.Join(errs...)
}

// Text renders one line per integration.
func (u Updates) Text() string {
	var b strings.Builder
	for _, r := range u {
		note := ""
		if r.Created {
			note = " (created the repository)"
		}
		switch {
		case r.Err != nil:
			fmt.Fprintf(&b, "%s: failed (%s): %v\n", r.Repo, flow.FailedStep(r.Err), r.Err)
		case r.Unchanged:
			fmt.Fprintf(&b, "%s: unchanged at %.12s; nothing pushed\n", r.Repo, r.Head)
		case r.Commit == "" && r.Missing:
			fmt.Fprintf(&b, "%s: generated; does not exist yet, and this dry run creates nothing\n", r.Repo)
		case r.Commit == "":
			fmt.Fprintf(&b, "%s: generated and read %.12s; dry run, nothing written\n", r.Repo, r.Head)
		default:
			fmt.Fprintf(&b, "%s: pushed %.12s on %.12s%s\n", r.Repo, r.Commit, r.Head, note)
		}
	}
	var untracked []string
	for _, r := range u {
		if r.Untracked {
			untracked = append(untracked, r.Name)
		}
	}
	if len(untracked) > 0 {
		fmt.Fprintf(&b, "Not in %s (model-versions does not follow their upstreams): %s\n", upstreams.FilePath, strings.Join(untracked, ", "))
	}
	return b.String()
}

// Integrations lists the integrations of the Cloudcoil repository, every folder under
// models/ (ModelFolders), as a JSON array for update-repos' workflow matrix.
func Integrations(ctx context.Context, source *dagger.Directory) (string, error) {
	folders, err := ModelFolders(ctx, source)
	if err != nil {
		return "", err
	}
	return genrepo.Validation{Integrations: folders}.ListJSON(), nil
}

var integrationName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// ModelFolders lists the folders under models/ of the Cloudcoil repository, sorted: the
// integrations the Makefile publishes (REPOS := $(shell ls models)), each to
// <owner>/models-<folder>.
func ModelFolders(ctx context.Context, source *dagger.Directory) ([]string, error) {
	entries, err := source.Directory("models").Entries(ctx)
	if err != nil {
		return nil, fmt.Errorf("models/: %w (is --source the Cloudcoil repository?)", err)
	}
	var folders []string
	for _, e := range entries {
		name, isDir := strings.CutSuffix(e, "/")
		if !isDir {
			continue
		}
		if !integrationName.MatchString(name) {
			return nil, fmt.Errorf("models/%s/: not a name for a repository models-<name> (lowercase letters, digits, '.', '_' and '-'); rename the folder", name)
		}
		folders = append(folders, name)
	}
	if len(folders) == 0 {
		return nil, errors.New("models/ holds no integration folder (is --source the Cloudcoil repository?)")
	}
	sort.Strings(folders)
	return folders, nil
}

// untracked are the folders models/upstreams.json leaves out (none when there is no such
// file: nothing is tracked, which model-versions says itself).
func untracked(ctx context.Context, source *dagger.Directory, folders []string) (map[string]bool, error) {
	ok, err := source.Exists(ctx, upstreams.FilePath)
	if err != nil || !ok {
		return nil, err
	}
	file, err := genrepo.ReadUpstreams(ctx, source)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, f := range folders {
		if !slices.Contains(file.Names(), f) {
			out[f] = true
		}
	}
	return out, nil
}

// updateReposState is one integration's update as its steps fill it in.
type updateReposState struct {
	name, owner, repo, branch string
	missing, created          bool // the repository does not exist; this update created it
	files                     []github.TreeFile
	head, headTree            string
	current                   []github.TreeEntry // headTree's entries
	tree, commit              string
}

// Update updates the model repositories of the integrations, concurrently, each on
// its own: one integration's failure never stops another's push. The GitHub client holds
// the token (CI_GITHUB_TOKEN, whose pushes start the repositories' own workflows) in
// memory; no container receives it. The error, when any update failed, joins every
// failure; the updates are returned either way.
func Update(ctx context.Context, e modelenv.Env, gh github.API, source *dagger.Directory, o UpdateOptions) (Updates, error) {
	if o.Owner == "" {
		o.Owner = DefaultModelOwner
	}
	if o.Branch == "" {
		o.Branch = "main"
	}
	if o.SourceBranch == "" {
		o.SourceBranch = "main"
	}
	if !fullSHA.MatchString(o.SourceCommit) && (o.SourceCommit != "" || !o.DryRun) {
		return nil, fmt.Errorf("the source commit %q is not a full commit SHA: give --commit the Cloudcoil commit the source is a checkout of (github.sha in a workflow)", o.SourceCommit)
	}
	if !o.DryRun {
		if err := checkSourceAccess(ctx, gh, o.SourceRepo); err != nil {
			return nil, fmt.Errorf("nothing was generated or written: %w", err)
		}
	}
	folders, err := ModelFolders(ctx, source)
	if err != nil {
		return nil, err
	}
	left, err := untracked(ctx, source, folders)
	if err != nil {
		return nil, err
	}
	if log := e.Log; log != nil {
		// The integrations log concurrently; the caller's function sees one line at a time.
		var mu sync.Mutex
		e.Log = func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			log(format, args...)
		}
	}
	names := o.Names
	if len(names) == 0 {
		names = folders
	}
	for _, n := range names {
		if !slices.Contains(folders, n) {
			return nil, fmt.Errorf("update-repos --name %s: models/ has no folder %s (integrations: %s)", n, n, strings.Join(folders, ", "))
		}
	}
	out := make(Updates, len(names))
	err = fanout.Each(ctx, 0, len(names), func(ctx context.Context, i int) error {
		out[i] = updateRepo(ctx, e, gh, source, names[i], o)
		out[i].Untracked = left[names[i]]
		return nil // a failed repository is its update's Err
	})
	if err != nil {
		return out, err // cancelled: a repository was not updated
	}
	if err := out.Err(); err != nil {
		return out, fmt.Errorf("%d of %d failed:\n%w", countFailed(out), len(out), err)
	}
	return out, nil
}

func countFailed(u Updates) int {
	n := 0
	for _, r := range u {
		if r.Err != nil {
			n++
		}
	}
	return n
}

// updateRepo runs one integration's steps.
func updateRepo(ctx context.Context, e modelenv.Env, gh github.API, source *dagger.Directory, name string, o UpdateOptions) RepoUpdate {
	repo := ModelRepoName(o.Owner, name)
	st := &updateReposState{name: name, owner: o.Owner, repo: "models-" + name, branch: o.Branch}
	steps := updateSteps(e, gh, source, name, o)
	flowName := "" // without the caller's name, flow.Run refuses the flow
	if o.Flow != "" {
		flowName = o.Flow + " " + name
	}
	ran, err := flow.Run(ctx, flow.Runner{Flow: flowName, Log: e.Log, DryRun: o.DryRun}, steps, st)
	u := RepoUpdate{Name: name, Repo: repo, Head: st.head, Commit: st.commit, Steps: ran, Err: err, Created: st.created, Missing: st.missing}
	u.Unchanged = err == nil && st.tree != "" && st.tree == st.headTree
	return u
}

// updateSteps are one integration's update, declared: generate, read the automation
// branch, then what writes it. Their names and advice name the integration's repository;
// the bodies are the methods of integrationUpdate.
func updateSteps(e modelenv.Env, gh github.API, source *dagger.Directory, name string, o UpdateOptions) []flow.Step[updateReposState] {
	u := integrationUpdate{env: e, gh: gh, source: source, name: name, repo: ModelRepoName(o.Owner, name), o: o}
	return []flow.Step[updateReposState]{
		{Name: "generate", Run: u.generate,
			Next: "fix the integration's source under models/" + name + "/ (run make gen-repo-" + name + " locally) and merge the fix"},
		{Name: "read " + o.Branch, Run: u.readBranch,
			Next: "give CI_GITHUB_TOKEN contents write access to " + u.repo + ", whose " + o.Branch + " branch receives the generation"},
		{Name: "check source", Run: u.checkSource,
			Next: "run update-repos for Cloudcoil " + o.SourceBranch + "'s head (a new run, or a re-run of the newest run) rather than re-running an older one"},
		{Name: "create repository", Writes: true, Run: u.createRepository,
			Next: "create it as Cloudcoil's publish-repo-" + name + " does: " + CreateRepoCommand(o.Owner, name) + "; or give CI_GITHUB_TOKEN the organisation's administration permission"},
		{Name: "write tree", Writes: true, Run: u.writeTree,
			Next: "re-run the update; a tree object changes no branch"},
		{Name: "push", Writes: true, Run: u.push,
			Next: "re-run the update: it commits on " + o.Branch + "'s new head; never force-push over it"},
	}
}

// integrationUpdate is what one integration's update steps share: the generator
// repository's source, the client, and the repository the integration publishes to.
type integrationUpdate struct {
	env    modelenv.Env
	gh     github.API
	source *dagger.Directory
	name   string
	repo   string // owner/models-<name>
	o      UpdateOptions
}

// generate renders and generates the integration's repository and reads its files.
func (u integrationUpdate) generate(ctx context.Context, s *updateReposState) error {
	dir, err := genrepo.Repo(ctx, u.env, u.source, u.name)
	if err != nil {
		return err
	}
	s.files, err = genrepo.ReadGenerated(ctx, u.env, dir, modelenv.DefaultTreeLimits())
	return err
}

// readBranch reads the automation branch; a repository that does not exist is left to
// createRepository.
func (u integrationUpdate) readBranch(ctx context.Context, s *updateReposState) error {
	ok, err := readHead(ctx, u.gh, s)
	if err != nil || ok {
		return err
	}
	_, found, err := u.gh.RepoPermissions(ctx, s.owner, s.repo)
	if err != nil {
		return err
	}
	if found {
		return fmt.Errorf("%s has no branch %s: push one (e.g. its README) first", u.repo, s.branch)
	}
	s.missing = true
	return nil
}

// checkSource refuses to push a generation older than what the branch holds.
func (u integrationUpdate) checkSource(ctx context.Context, s *updateReposState) error {
	if u.o.SourceCommit == "" {
		return nil // a dry run without --commit: nothing is pushed
	}
	f, err := sourceFacts(ctx, u.gh, u.o, s.owner, s.repo, s.head)
	if err != nil {
		return err
	}
	return CheckSource(f)
}

// createRepository creates a missing repository as publish-repo-<name> does, with its
// topics, and reads the branch its README made.
func (u integrationUpdate) createRepository(ctx context.Context, s *updateReposState) error {
	if !s.missing {
		return nil
	}
	err := u.gh.CreateOrgRepo(ctx, s.owner, github.NewRepository{Name: s.repo, Description: ModelRepoDescription(u.name), Public: true, WithReadme: true})
	switch {
	case errors.Is(err, github.ErrNotAllowed):
		return fmt.Errorf("%s does not exist, and CI_GITHUB_TOKEN may not create it: %w", u.repo, err)
	case err != nil && !errors.Is(err, github.ErrAlreadyExists):
		return err
	}
	if err := u.gh.ReplaceTopics(ctx, s.owner, s.repo, []string{modelRepoTopicCloudcoil, modelRepoTopicModels}); err != nil {
		return fmt.Errorf("%s was created, but not its topics: %w", u.repo, err)
	}
	s.created = true
	ok, err := readHead(ctx, u.gh, s)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%s was created with a README, but has no branch %s: is its default branch another?", u.repo, s.branch)
	}
	s.missing = false
	return nil
}

// writeTree writes the generated files as a tree on the branch's tree.
func (u integrationUpdate) writeTree(ctx context.Context, s *updateReposState) error {
	base := s.headTree
	if s.current == nil {
		base = ""
	}
	var err error
	s.tree, err = u.gh.WriteTree(ctx, s.owner, s.repo, base, s.current, s.files, github.DefaultTreeBatches())
	return err
}

// push commits the tree on the branch's head and moves the branch, never by force.
func (u integrationUpdate) push(ctx context.Context, s *updateReposState) error {
	if s.tree == s.headTree {
		return nil // the same files: nothing to push
	}
	commit, err := u.gh.CreateCommit(ctx, s.owner, s.repo, UpdateMessage(u.name, u.o.SourceCommit), s.tree, []string{s.head})
	if err != nil {
		return err
	}
	err = u.gh.UpdateBranch(ctx, s.owner, s.repo, s.branch, commit, false)
	if errors.Is(err, github.ErrNotFastForward) {
		return fmt.Errorf("%s of %s diverged from %.12s, the head this update read and committed on (another push moved it): %w", s.branch, u.repo, s.head, err)
	}
	if err != nil {
		return err
	}
	s.commit = commit
	return nil
}

// readHead reads the branch's head, its tree and the tree's entries into s; ok is false
// when the branch does not exist.
func readHead(ctx context.Context, gh github.API, s *updateReposState) (ok bool, err error) {
	head, ok, err := gh.BranchHead(ctx, s.owner, s.repo, s.branch)
	if err != nil || !ok {
		return false, err
	}
	s.head = head
	if s.headTree, err = gh.CommitTree(ctx, s.owner, s.repo, head); err != nil {
		return false, err
	}
	var complete bool
	if s.current, complete, err = gh.Tree(ctx, s.owner, s.repo, s.headTree); err != nil {
		return false, err
	}
	if !complete {
		s.current = nil // GitHub cut the listing: send every file, on no base
	}
	return true, nil
}

// UpdateMessage is the commit message of a repository update.
func UpdateMessage(name, sourceCommit string) string {
	from := "the Cloudcoil source"
	if sourceCommit != "" {
		from = "Cloudcoil at " + sourceCommit
	}
	msg := fmt.Sprintf("Update generated models and template of %s\n\nRendered and generated from %s by Shipyard's update-repos.\n", name, from)
	if sourceCommit != "" {
		msg += "\n" + SourceTrailer + ": " + sourceCommit + "\n"
	}
	return msg
}
