package main

import "os"

// targetEnv is the environment run-mcp gives a target it starts: PATH,
// HOME, SHELL and USER from this process's environment and nothing else
// (internal/supervise.TargetEnv). The report starts its direct targets with
// it, as the floors under test/bench start theirs, so that both sides run
// the same server the same way.
func targetEnv() []string {
	var env []string
	for _, name := range []string{"HOME", "PATH", "SHELL", "USER"} {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}
