package e2e

import (
	"strings"
	"testing"
)

func TestListResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"list-resources"}, demo())...)
	r.wantCode(t, 0)
	var resources []struct{ URI string }
	r.json(t, &resources)
	if len(resources) != 1 || resources[0].URI != "demo://counter" {
		t.Fatalf("list-resources prints the resources array: %+v\n%s", resources, r)
	}
	r.wantStderr(t, "1 resource template(s); list-resources --raw lists them")
	r = run(t, args([]string{"list-resources", "--raw"}, demo())...)
	r.wantCode(t, 0)
	var res struct {
		Resources []struct{ URI string } `json:"resources"`
		Templates []struct {
			URITemplate string `json:"uriTemplate"`
		} `json:"resourceTemplates"`
	}
	r.json(t, &res)
	if len(res.Resources) != 1 || res.Resources[0].URI != "demo://counter" || len(res.Templates) != 1 || res.Templates[0].URITemplate != "demo://echo/{text}" {
		t.Fatalf("list-resources --raw: %+v", res)
	}
	r = run(t, args([]string{"list-prompts"}, demo())...)
	r.wantCode(t, 0)
	var prompts []struct{ Name string }
	r.json(t, &prompts)
	if len(prompts) != 1 || prompts[0].Name != "greet" {
		t.Fatalf("list-prompts: %+v", prompts)
	}
}

func TestReadAndGetPrompt(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"read", "demo://echo/hello"}, demo())...)
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, `"text": "hello"`) {
		t.Fatalf("read: %s", r)
	}
	r = run(t, args([]string{"get-prompt", "greet", "name=Ada"}, demo())...)
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, "Say hello to Ada.") {
		t.Fatalf("get-prompt: %s", r)
	}
	// Prompt arguments are strings: key:=json is refused before anything runs.
	r = run(t, args([]string{"get-prompt", "greet", "name:=1"}, demo())...)
	r.wantCode(t, 65)
	if strings.Contains(r.stderr, "Connected to") {
		t.Errorf("malformed arguments must fail before the server is spawned:\n%s", r.stderr)
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"describe", "echo"}, demo())...)
	r.wantCode(t, 0)
	var tool struct {
		Name        string         `json:"name"`
		InputSchema map[string]any `json:"inputSchema"`
	}
	r.json(t, &tool)
	if tool.Name != "echo" || tool.InputSchema["required"] == nil {
		t.Fatalf("describe echo: %s", r.stdout)
	}
	r = run(t, args([]string{"describe", "ecko"}, demo())...)
	r.wantCode(t, 64)
	r.wantStderr(t, `Did you mean "echo"?`)
}

func TestStartupStderr(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"stderr"}, demo("--stderr-flood", "3"))...)
	r.wantCode(t, 0)
	var lines []string
	r.json(t, &lines)
	if strings.Join(lines, "|") != "flood line 1|flood line 2|flood line 3" {
		t.Fatalf("stderr: %q", lines)
	}
	r = run(t, args([]string{"stderr", "1"}, demo("--stderr-flood", "3"))...)
	r.json(t, &lines)
	if len(lines) != 1 || lines[0] != "flood line 3" {
		t.Fatalf("stderr 1: %q", lines)
	}
	// A server that dies at start still has its stderr printed, and exits 69.
	r = run(t, args([]string{"stderr"}, demo("--crash-at-start", "no database"))...)
	r.wantCode(t, 69)
	r.json(t, &lines)
	if len(lines) == 0 || lines[0] != "demo-server: fatal: no database" {
		t.Fatalf("stderr of a crash at start: %q", lines)
	}
}
