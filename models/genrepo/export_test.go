package genrepo

// What the external tests (package genrepo_test, which can use modeltest: it imports this
// package) reach of the base resolution.
var (
	ResolveBase    = resolveBase
	BaseNamesTried = baseNamesTried
	BaseAdviceFor  = baseAdvice
)
