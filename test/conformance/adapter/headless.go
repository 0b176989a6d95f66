package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
)

// headless lists the tools with `run-mcp list-tools` and calls each with
// `run-mcp call`, the way a shell user would. A call that exits non-zero is
// reported but does not stop the others: the suite judges the traffic.
func headless(ctx context.Context, bin, protocol, url string) error {
	env, cleanup, err := isolate()
	if err != nil {
		return err
	}
	defer cleanup()
	out, err := runMCP(ctx, bin, env, append(append([]string{"list-tools", "--protocol", protocol}, authFlags()...), "--", url)...)
	if err != nil {
		return err
	}
	var listed []tool // list-tools prints the array of tools, as 3.0 did
	if err := json.Unmarshal(out, &listed); err != nil {
		return fmt.Errorf("list-tools printed something that is not its JSON array: %w", err)
	}
	for _, t := range listed {
		args, _ := json.Marshal(argumentsFor(t.InputSchema, listed))
		if _, err := runMCP(ctx, bin, env, append(append([]string{"call", "--protocol", protocol}, authFlags()...), t.Name, string(args), "--", url)...); err != nil {
			fmt.Fprintf(os.Stderr, "adapter: call %s: %v\n", t.Name, err)
		}
	}
	return nil
}

// runMCP runs one run-mcp subcommand; its stderr passes through so the
// suite's stderr.txt shows run-mcp's own status lines.
func runMCP(ctx context.Context, bin string, env []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	os.Stdout.Write(out.Bytes())
	if err != nil {
		return out.Bytes(), fmt.Errorf("run-mcp %s: %w", args[0], err)
	}
	return out.Bytes(), nil
}
