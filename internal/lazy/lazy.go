// Package lazy defers work that would otherwise run when the program
// starts. Every package-level regexp.MustCompile or template.Parse runs
// before main, for every command, including the shell completion that
// runs latlab on every Tab; a pattern compiled on first use costs nothing
// to the commands that never use it.
package lazy

import (
	"regexp"
	"sync"
)

// Regexp returns a function that compiles expr on its first call and
// returns the same *regexp.Regexp on every call. Like regexp.MustCompile
// it panics if expr is invalid (a programming error, caught by the tests
// of the code that uses it).
func Regexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
