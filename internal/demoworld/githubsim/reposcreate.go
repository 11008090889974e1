package githubsim

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// repoCreateRoutes create an organisation's repository and set its topics, as Cloudcoil's
// publish-repo-% target does with gh repo create and gh repo edit --add-topic.
func repoCreateRoutes() []route {
	return []route{
		{method: http.MethodPost, pattern: "/orgs/{org}/repos", handle: createOrgRepo},
		{method: http.MethodPut, pattern: "/repos/{owner}/{repo}/topics", handle: replaceTopics},
	}
}

// repoProfile is what creation sets beside the repository's Git state.
type repoProfile struct {
	description string
	topics      []string
}

var profiles sync.Map // *Repo → *repoProfile

func (r *Repo) profile() *repoProfile {
	p, loaded := profiles.LoadOrStore(r, &repoProfile{})
	if !loaded {
		r.s.tb.Cleanup(func() { profiles.Delete(r) })
	}
	return p.(*repoProfile)
}

// Description is the repository's description, as given at creation.
func (r *Repo) Description() string {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.profile().description
}

// Topics are the repository's topics.
func (r *Repo) Topics() []string {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return slices.Clone(r.profile().topics)
}

// Repo returns the repository owner/name, or nil when there is none (e.g. to inspect
// one a flow created).
func (s *Server) Repo(fullName string) *Repo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.repos[strings.ToLower(fullName)]
}

var repoName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,100}$`)

// createOrgRepo answers POST /orgs/{org}/repos. A token needs push access and the
// administration permission; a taken name is 422 "name already exists on this account".
// auto_init makes a first commit on main with README.md ("# name", then the
// description), as GitHub (and gh repo create --add-readme) does.
func createOrgRepo(c *call) reply {
	const docs = "/repos/repos#create-an-organization-repository"
	if !c.mayWrite() || c.lacks("administration") {
		return errorReply(http.StatusForbidden, "You need admin access to the organization before adding a repository to it.", docs)
	}
	var in struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Private     bool   `json:"private"`
		AutoInit    bool   `json:"auto_init"`
	}
	if err := json.Unmarshal(c.body, &in); err != nil {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON", docs)
	}
	if !repoName.MatchString(in.Name) {
		return validationFailed(docs, fieldError{Resource: "Repository", Code: "custom", Field: "name"})
	}
	org := c.r.PathValue("org")
	if c.s.repos[strings.ToLower(org+"/"+in.Name)] != nil {
		return reply{status: http.StatusUnprocessableEntity, body: map[string]any{
			"message": "Repository creation failed.",
			"errors": []map[string]string{
				{"resource": "Repository", "code": "custom", "field": "name", "message": "name already exists on this account"},
			},
			"documentation_url": docsBase + docs, "status": "422",
		}}
	}
	r := c.s.addRepoLocked(org, in.Name)
	r.profile().description = in.Description
	if in.AutoInit {
		readme := "# " + in.Name + "\n"
		if in.Description != "" {
			readme += in.Description + "\n"
		}
		r.branches["main"] = r.addCommitLocked("Initial commit", nil, map[string]string{"README.md": readme})
	}
	c.repo = r
	rep := getRepo(c)
	body := rep.body.(map[string]any)
	body["description"] = in.Description
	return reply{status: http.StatusCreated, body: body, header: http.Header{"Location": {c.repoURL("")}}}
}

// replaceTopics answers PUT /repos/{owner}/{repo}/topics: the topics become exactly names,
// lowercased, as GitHub saves them.
func replaceTopics(c *call) reply {
	const docs = "/repos/repos#replace-all-repository-topics"
	if !c.mayWrite() || c.lacks("administration") {
		return noPushAccess(docs)
	}
	var in struct {
		Names *[]string `json:"names"`
	}
	if err := json.Unmarshal(c.body, &in); err != nil {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON", docs)
	}
	if in.Names == nil {
		return validationFailed(docs, fieldError{Resource: "Repository", Code: "missing_field", Field: "names"})
	}
	names := make([]string, 0, len(*in.Names))
	for _, n := range *in.Names {
		names = append(names, strings.ToLower(n))
	}
	c.repo.profile().topics = names
	return okJSON(map[string]any{"names": names})
}
