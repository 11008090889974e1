// Package updaterepos is update-repos: after a source update is merged in Cloudcoil, it
// renders and generates each integration's repository (package genrepo) from the merged
// source and pushes it to the main branch of the integration's model repository,
// refusing a source that does not descend from the one the repository was last generated
// from (CheckSource). It also lists the integrations of a source (Integrations).
package updaterepos
