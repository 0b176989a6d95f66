package main

import "os"

// targetEnv is the environment run-mcp gives a target it starts: PATH,
// HOME, SHELL and USER from this process's environment and nothing else
// (internal/supervise.TargetEnv, sorted as it sorts them). A floor gives its
// target the same, so that both sides run the same server the same way:
// an inherited variable can change how a server runs (Node reads many).
func targetEnv() []string {
	var env []string
	for _, name := range []string{"HOME", "PATH", "SHELL", "USER"} {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}
