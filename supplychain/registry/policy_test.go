package registry

// tesk is tesk-core's tag policy, which these tests publish under: latest, dev following
// the dev branch, and sha-<commit>.
var tesk = TagPolicy{Latest: "latest", BranchTag: "dev", Branch: "dev", CommitPrefix: "sha-"}
