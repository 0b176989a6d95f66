package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// The client ID metadata document URL the suite's basic-cimd scenario
// accepts (it is never fetched): run-mcp is given it as a user would give
// the URL of a document describing run-mcp.
const cimdURL = "https://conformance-test.local/client-metadata.json"

// authContext is what a scenario hands its client beyond the URL
// (MCP_CONFORMANCE_CONTEXT): a pre-registered client, for pre-registration.
type authContext struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
}

func scenarioContext() authContext {
	var c authContext
	_ = json.Unmarshal([]byte(os.Getenv("MCP_CONFORMANCE_CONTEXT")), &c)
	return c
}

// authFlags are run-mcp's OAuth flags for this scenario.
func authFlags() []string {
	flags := []string{"--client-metadata-url", cimdURL}
	if c := scenarioContext(); c.ClientID != "" {
		flags = append(flags, "--client-id", c.ClientID)
		if c.ClientSecret != "" {
			flags = append(flags, "--client-secret", c.ClientSecret)
		}
	}
	return flags
}

// authArgs are connect_to_mcp's oauth argument for this scenario.
func authArgs() map[string]any {
	o := map[string]any{"client_metadata_url": cimdURL}
	if c := scenarioContext(); c.ClientID != "" {
		o["client_id"] = c.ClientID
		if c.ClientSecret != "" {
			o["client_secret"] = c.ClientSecret
		}
	}
	return o
}

// isolate gives run-mcp a configuration directory of this run's own, so a
// scenario never finds the tokens of another (or of the user).
func isolate() (env []string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "run-mcp-conformance-")
	if err != nil {
		return nil, nil, err
	}
	return []string{"RUN_MCP_CONFIG_DIR=" + dir}, func() { _ = os.RemoveAll(dir) }, nil
}

// openInBrowser is what a person does with a URL-mode elicitation: open
// it. $BROWSER (the suite's runner sets it to test/conformance/browser)
// stands in for the browser.
func openInBrowser(ctx context.Context, url string) error {
	browser := strings.Fields(os.Getenv("BROWSER"))
	if len(browser) == 0 {
		return fmt.Errorf("no $BROWSER to open %s with", url)
	}
	cmd := exec.CommandContext(ctx, browser[0], append(browser[1:], url)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}
