// Package trivy holds tesk-core's image-scan policy as pure functions over Trivy's outputs:
// the rules for .trivyignore.yaml (every accepted finding has a reason and an expiry), the
// ignore semantics Trivy applies to findings, reading JSON (schema 2) and SARIF reports, and
// the verdict: fail on CRITICAL and HIGH vulnerabilities that have a fix, unless accepted.
//
// Matching follows Trivy's own code (pkg/result/ignore.go and pkg/purl): an entry applies
// when its id matches exactly, one of its paths (doublestar globs, the library Trivy uses)
// matches the result's target or the package path, one of its purls matches the package, and
// its expired_at, read as midnight UTC, is not before now.
package trivy
