package targets

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// Build is one binary a test package builds before its tests: Pkg (a
// package path relative to the repository root) is built into a temporary
// directory and its path stored in *Out.
type Build struct {
	Out *string
	Pkg string
}

// Main is the TestMain of a black-box test package: it builds every binary
// once, runs the tests under goleak, and removes the binaries afterwards. A
// build that fails ends the run with its output.
func Main(m *testing.M, prefix string, builds ...Build) {
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
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		_ = os.RemoveAll(dir)
		os.Exit(code)
	}))
}
