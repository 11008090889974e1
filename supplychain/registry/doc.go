// Package registry is Shipyard's edge to OCI registries: it pushes images by
// digest without creating tags, resolves tags, and points tags at digests
// under the publishing rules of the release flows.
//
// The rules are pure functions (ClassifyTag, PlanTags): a version tag
// (0.11.0, 0.11.0rc1) and a commit tag (tesk-core's sha-<commit>) never move
// once published; the latest tag and the branch tag are moving tags. The names
// of the commit, latest and branch tags are the publishing system's (TagPolicy).
// The functions that talk to a
// registry (PushByDigest, ResolveTags, Tags, Digest, ApplyTags) act on a plan
// and re-check the registry immediately before each write, so a re-run after
// a failure converges and a concurrent publisher is detected instead of
// overwritten.
//
// Credentials (Auth) live only in memory: they are sent as HTTP headers by
// go-containerregistry, never put in a reference or URL, and scrubbed from
// every error this package returns. Plain HTTP goes only to the one host the
// caller names (WithPlainHTTP): Shipyard names a registry on a loopback address
// or the Dagger engine's gateway, where the traffic cannot leave the machine.
//
// The registry command (cmd/registry) runs these functions for the Shipyard
// Dagger module, whose own binary links no registry client.
//
// Images come in as a v1.Image or as a file or directory (OpenImage): an OCI
// image layout as a tar file (what Dagger's Container.AsTarball and
// Container.Export write) or as a directory, or a docker-archive tar (docker
// save); such a file holds one single-platform image, and an image index in it
// is refused. A multi-platform image is built from its platform images
// (NewIndex) and pushed as one OCI image index by digest (PushIndexByDigest);
// its tags then follow the same rules as an image's.
package registry
