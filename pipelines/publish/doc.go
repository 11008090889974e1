// Package publish is the image supply chain of tesk-core: push by digest, scan exactly
// those digests, attest their build provenance, sign them, and only then tag them. It serves
// the dev publishing on pushes to dev, the weekly scan of published images, and the image
// steps of a release.
//
// Each step is one file and one function that can run alone (a GitHub job runs one step
// with only the credentials it needs) or chained by a flow (PublishDev). Every step checks
// what exists before it writes, so a re-run after a failure finishes the job without a
// second push, a second signature or a moved version:
//
//	push.go       PushByDigest: export each image as an OCI tarball, push it untagged
//	scan.go       ScanDigests: Trivy on repo@sha256:… with no credentials in the graph
//	attest.go     Attest: SLSA v1 build provenance per digest, as a Sigstore bundle referrer
//	sign.go       Sign: a cosign-compatible signature per digest, as a referrer
//	tag.go        TagImages: plan every tag of every image, then write; versions never move
//	tool.go       Tool: the supplychain command, built from this repository in a container
//	dev.go        PublishDev: the flow of a push to dev
//	published.go  ScanPublished: the weekly scan of published tags
//	verify.go     Verify: what a user runs before deploying an image
//
// Registry work (push, tag, resolve) is Go in this process, with the password in memory
// only (internal/registry). Signing and verifying run the supplychain command (its own Go
// module, so that sigstore-go stays out of the Dagger module's build) in a container, with
// the OIDC token and the registry password mounted as secret files.
package publish
