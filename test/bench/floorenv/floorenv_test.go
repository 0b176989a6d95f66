package floorenv

import (
	"slices"
	"testing"

	"github.com/run-mcp/run-mcp/wire"
)

// The floors' servers get exactly the environment run-mcp gives its
// targets, whatever this process's environment holds.
func TestTargetIsRunMCPs(t *testing.T) {
	t.Setenv("HOME", "/home/floor")
	t.Setenv("SHELL", "/bin/sh")
	t.Setenv("USER", "floor")
	t.Setenv("FLOOR_SECRET", "not for targets")
	got, want := Target(), wire.BuildEnv(nil)
	if !slices.Equal(got, want) {
		t.Fatalf("floorenv.Target() = %q, run-mcp gives a target %q", got, want)
	}
}
