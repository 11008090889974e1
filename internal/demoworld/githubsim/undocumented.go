package githubsim

// undocumentedAnswers are answers GitHub gives that its REST API description
// (api.github.com.json.gz, @octokit/openapi 23.0.2) leaves out of an operation's
// responses. Each cites the line of the description where the operation's responses
// begin, so it can go when a newer description lists the status. GitHub's REST API
// overview gives 422 Validation Failed for input a request cannot use on any endpoint.
var undocumentedAnswers = map[string]map[int]string{
	// Line 75298: responses of repos/update-release list 200 and 404. Publishing a draft
	// whose tag another published release holds is refused as already_exists, as creating
	// one is (POST /releases lists 422).
	"PATCH /repos/{owner}/{repo}/releases/{release_id}": {422: "tag_name already_exists"},
	// Line 75026: responses of repos/generate-release-notes list 200 and 404. A
	// previous_tag_name that names no tag, or a new tag_name at a target_commitish that
	// names no commit, cannot be used.
	"POST /repos/{owner}/{repo}/releases/generate-notes": {422: "previous_tag_name or target_commitish invalid"},
}
