package targets

import (
	"fmt"
	"os"
)

// Build is one binary a test package builds before its tests: Pkg (a
// package path relative to the repository root) is built into a temporary
// directory and its path stored in *Out.
type Build struct {
	Out *string
	Pkg string
}

// BuildAll builds every binary once into a new temporary directory for a
// black-box test package's TestMain, and returns the exit function for
// goleak.Cleanup that removes them. A build that fails ends the run with
// its output.
func BuildAll(prefix string, builds ...Build) (cleanup func(code int)) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, b := range builds {
		if *b.Out, err = BuildBinary(dir, b.Pkg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			_ = os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	return func(code int) {
		_ = os.RemoveAll(dir)
		os.Exit(code)
	}
}
