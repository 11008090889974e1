// A bare module, to compare module loads with.
package main

type Bare struct{}

// Greet returns a greeting.
func (m *Bare) Greet(name string) string { return "hello, " + name }
