// Command trivydb writes the vulnerability database the real-engine suite's Trivy reads:
// a bolt file and metadata.json at Trivy's schema version, written with trivy-db's own
// packages, since Trivy's published database cannot be downloaded where the suite runs.
//
// Its advisories are for Debian 12 packages that really are in the suite's test images,
// found in the image's own dpkg status file, so Trivy detects them the way it detects any
// Debian package: by the image's OS record and each package's source name and version.
// A fixable advisory is fixed in a version just above the installed one; an unfixed one
// has no fixed version and Debian's "affected" status.
//
//	trivydb -status <rootfs>/var/lib/dpkg/status -set gate -out <trivy cache dir>
//
// writes <out>/db/trivy.db and <out>/db/metadata.json, the layout of Trivy's cache
// directory, which Trivy reads with --skip-db-update (or TRIVY_SKIP_DB_UPDATE=true).
package main
