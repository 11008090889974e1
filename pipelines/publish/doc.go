// Package publish is an image supply chain: push by digest, scan exactly those digests,
// attest their build provenance, sign them, and only then tag them. It works over the
// artifacts and the scanner a system produces (Artifact, Scanner: tesk-core's in
// pipelines/ci/artifact), whose policy (what blocks a scan, and how to fix it) stays the
// system's, and whose tag names (TagPolicy: tesk-core's in pipelines/ci/artifact too) the
// system gives in its Target. For tesk-core it serves the publishing on pushes to dev,
// the weekly scan of published images, and the image steps of a release.
//
// Each step is one file that declares the step beside its body (its name, whether it
// writes, the advice after a failure), run alone by a function (alone.go: a GitHub job
// runs one step with only the credentials it needs) or chained by a flow (PublishBranch, the
// release). Every step checks what exists before it writes, so a re-run after a failure
// finishes the job without a second push, a second signature or a moved version. The
// files, from the top down (none uses a file above it):
//
//	alone.go, branch.go  each step run alone (PushByDigest, Sign, …); PublishBranch, a push to the branch
//	steps.go          the steps in their one order (Steps), the inputs check, Alone
//	push.go           each image as an OCI tarball to the registry command, untagged
//	scan.go           Trivy on repo@sha256:… with no credentials in the graph
//	attest.go         SLSA v1 build provenance per digest, as a Sigstore bundle referrer
//	sbom.go           the CycloneDX SBOM per digest, attested
//	sign.go           a cosign-compatible signature per digest, as a referrer
//	verifysigned.go   the new evidence verified with the signer's identity, before any tag
//	tag.go            plan every tag of every image, then write; versions never move
//	verify.go         what a user runs before deploying an image
//	assemble.go       each image's index from the platform jobs' pushes
//	state.go          what the steps share (ImageState) and how a step is declared
//	provenance.go     what a provenance says: the source, the builder, the Dockerfile
//	tool.go           BuildTool, BuildRegistryTool: the supplychain and registry commands,
//	                  built from this repository in a container
//	registry.go       how the registry command is run, and what it prints
//	target.go         where images go (Target), and what was pushed (Pushed)
//
// Registry work (push, indexes, tags, latest, resolve) runs the registry command, and
// signing and verifying the supplychain command, both of the supplychain Go module (so
// that neither go-containerregistry nor sigstore-go is in the Dagger module's build), each
// in a container, with the OIDC token and the registry password mounted as secret files:
// this process never reads them.
package publish
