package configscan

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use. Compiled in a package-level
// initializer, every pattern would cost each run-mcp process's start (its
// supervisor's too, the same binary), whether it is used or not.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
