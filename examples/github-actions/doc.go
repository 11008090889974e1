// Package githubactions holds the thin GitHub Actions wrappers of tesk-core and Cloudcoil
// (one folder per system). Each job only calls `dagger call` functions of the module; the
// tests here lint every workflow with actionlint and check that each call names a function
// and flags the module really declares, and that each Boolean flag's value, once the
// step's env is expanded, is one the CLI parses.
package githubactions
