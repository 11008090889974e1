// Package upstreams decides Cloudcoil's upstream model version updates: it reads
// models/upstreams.json, maps upstream release tags to versions, plans the updates (patches
// applied, newer minors proposed as each integration's policy says, Cloudcoil kept within
// its minor) and edits models/upstreams.json and models/<name>/cookiecutter.yaml in place.
// Everything here is pure over bytes and plain data, except FetchPyPI; the GitHub calls,
// the branch and the pull request belong to the flow that calls, in order:
//
//	file, err := upstreams.Parse(upstreamsJSON)
//	for each name: discovered[name] = upstreams.Candidates(*file.Integrations[name], releases)
//	info, err := upstreams.FetchPyPI(ctx, "https://pypi.org", file.Cloudcoil.Package, hc)
//	plan := upstreams.Plan(file, discovered, info)
//	upstreamsJSON, err = upstreams.ApplyToUpstreams(upstreamsJSON, plan)
//	cookiecutter, err = upstreams.ApplyToCookiecutter(cookiecutter, *file.Integrations[name], plan)
//	plan.PRTitle(), plan.PRBody(), plan.Text()
//
// # models/upstreams.json
//
// The file is machine-formatted: automation rewrites it with two-space indentation, keys in
// a fixed order (integrations sorted by name) and a trailing newline, so hand edits should
// keep that form (File.Marshal produces it). Unknown or duplicate fields are errors.
//
//	{
//	  "cloudcoil": {
//	    "package": "cloudcoil",       // PyPI project
//	    "version": "0.5.3",           // required now, final X.Y[.Z]
//	    "minor": "0.5"                // compatible minor: updates stay in it
//	  },
//	  "integrations": {
//	    "istio": {                    // folder name under models/
//	      "repository": "istio/istio",
//	      "tag_prefix": "",           // tags are exactly <prefix>X.Y.Z ("" = bare)
//	      "versions": ["1.24.2"],     // generation matrix, one per minor line, ascending
//	      "schema_urls": [
//	        {"url": "https://…/refs/tags/{version}/…/crds/crd-all.gen.yaml", "until": "1.24"},
//	        {"url": "https://…/refs/tags/{version}/…/files/crd-all.gen.yaml", "since": "1.24"}
//	      ],
//	      "policy": "newest-minor"
//	    },
//	    "knative-serving": {
//	      "repository": "knative/serving",
//	      "tag_pattern": "knative-v(?P<version>[0-9]+\\.[0-9]+\\.[0-9]+)",
//	      …
//	    },
//	    "kubernetes": {
//	      …,
//	      "policy": "maintained-lines",
//	      "maintained_lines": 4
//	    }
//	  }
//	}
//
// Per integration: exactly one of tag_prefix and tag_pattern (a regular expression matched
// against the whole tag, with one named group "version"); whatever the mapping, only an
// exact X.Y.Z without leading zeros is a release. schema_urls hold the placeholder
// {version} (X.Y.Z, the tag prefix spelled in the URL); since is inclusive, until
// exclusive, each X.Y or X.Y.Z. policy is required: "newest-minor" (one line; a newer minor
// or major is proposed as its replacement) or "maintained-lines" with maintained_lines N (a
// newer minor is proposed as an added line, the oldest past N retired). Either way the
// patches of every line are applied. declined (X.Y.Z, optional) keeps a turned-down
// proposal out until a newer release appears. An entry that breaks a rule is set aside as a
// Problem and the others go on.
//
// cookiecutter.yaml holds the same lines in versions, and one crd_urls from which Cloudcoil's
// update_releases.yml derives each line's URLs through version_replacement_sed
// (DeriveSchemaURLs); CheckCookiecutter holds the two files to that rule. ProposeFile writes
// a first upstreams.json from the cookiecutter.yaml files of a repository that has none.
package upstreams
