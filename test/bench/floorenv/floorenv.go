// Package floorenv is the environment the benchmark floors under test/bench
// give the servers they start: the one run-mcp gives a target (PATH, HOME,
// SHELL and USER from this process's environment and nothing else, sorted,
// as wire.BuildEnv makes it), so that both sides of a measure run the same
// server the same way. An inherited variable can change how a server runs
// (Node reads many). The floors use the standard library and this package
// only, never run-mcp's code; its test holds it to wire.BuildEnv.
package floorenv

import "os"

// Target is the environment for a server a floor starts.
func Target() []string {
	var env []string
	for _, name := range []string{"HOME", "PATH", "SHELL", "USER"} {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}
