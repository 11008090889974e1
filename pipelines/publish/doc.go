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
//	push.go       PushByDigest: each image as an OCI tarball to the registry command, untagged
//	scan.go       ScanDigests: Trivy on repo@sha256:… with no credentials in the graph
//	attest.go     Attest: SLSA v1 build provenance per digest, as a Sigstore bundle referrer
//	sign.go       Sign: a cosign-compatible signature per digest, as a referrer
//	tag.go        TagImages: plan every tag of every image, then write; versions never move
//	tool.go       Tool, RegistryTool: the supplychain and registry commands, built from
//	              this repository in a container
//	registry.go   how the registry command is run, and what it prints
//	dev.go        PublishDev: the flow of a push to dev
//	published.go  ScanPublished: the weekly scan of published tags
//	verify.go     Verify: what a user runs before deploying an image
//
// Registry work (push, indexes, tags, latest, resolve) runs the registry command, and
// signing and verifying the supplychain command, both of the supplychain Go module (so
// that neither go-containerregistry nor sigstore-go is in the Dagger module's build), each
// in a container, with the OIDC token and the registry password mounted as secret files:
// this process never reads them.
package publish
