package configscan

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Find reads an entry's values as its client would launch it: env and
// headers from every spelling, ${VAR} and ${VAR:-default} from the
// environment, Zed's command object, Codex's env_vars and token variables.
func TestFindLaunchesAsTheClientWould(t *testing.T) {
	m := newMachine(t)
	m.writeEveryClient(t)
	m.env["HOME_TOKEN"] = "from-env"
	m.env["CODEX_REMOTE_TOKEN"] = "tok"
	m.env["AUTH_ENV"] = "auth"
	find := func(name string) Launch {
		t.Helper()
		l, err := Find(m.options(), name)
		if err != nil {
			t.Fatalf("Find(%q): %v", name, err)
		}
		return l
	}
	cases := []struct {
		name string
		want Launch
	}{
		{"cc-local", Launch{Command: "go", Args: []string{"run", "./cmd/server"}, Env: map[string]string{"DB_PASSWORD": "s3cr3t-cc-local"}}},
		{"my-server", Launch{Command: "node", Args: []string{"build/index.js"}, Env: map[string]string{"API_KEY": "s3cr3t-default"}}},
		{"zed-old", Launch{Command: "old-mcp", Args: []string{"a"}, Env: map[string]string{"OLD_KEY": "s3cr3t-zed-old"}}},
		{"codex-docs", Launch{Command: "npx", Args: []string{"-y", "mcp-docs"}, Cwd: "/srv/docs",
			Env: map[string]string{"DOCS_TOKEN": "s3cr3t-codex-env", "HOME_TOKEN": "from-env"}}},
		{"codex-remote", Launch{URL: "https://codex.example/mcp", Args: []string{},
			Headers: map[string]string{"Authorization": "Bearer tok", "X-Team": "s3cr3t-codex-header", "X-Auth": "auth"}}},
		{"vs-local", Launch{Command: "node", Args: []string{"server.js"}, Cwd: m.proj, Env: map[string]string{"VS_SECRET": "s3cr3t-vscode-env"}}},
	}
	for _, c := range cases {
		got := find(c.name)
		got.Entry = Entry{}
		if c.want.Args == nil {
			c.want.Args = []string{}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %#v\nwant %#v", c.name, got, c.want)
		}
	}
	m.env["API_KEY"] = "set"
	if got := find("my-server").Env["API_KEY"]; got != "set" {
		t.Errorf("${API_KEY:-default} with API_KEY set: got %q", got)
	}
	// ${input:…} cannot be filled in outside the editor.
	if _, err := Find(m.options(), "github"); err == nil || !strings.Contains(err.Error(), "${input:gh-token}") {
		t.Errorf("github (${input:} in a header): %v", err)
	}
	if strings.Contains(find("codex-remote").String(), "tok") {
		t.Errorf("String shows a value: %s", find("codex-remote"))
	}
}

func TestFindRefusesWhatItCannotLaunch(t *testing.T) {
	m := newMachine(t)
	m.writeEveryClient(t)
	write(t, filepath.Join(m.home, ".cursor", "mcp.json"), `{"mcpServers": {"cc-local": {"command": "x"}, "needs": {"command": "${NOT_SET_HERE}"}}}`)
	_, err := Find(m.options(), "cc-local")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || len(amb.Matches) != 2 {
		t.Fatalf("a name two files define: %v", err)
	}
	if want := []string{"claude-code (local: " + m.proj + "):cc-local", "cursor (user):cc-local"}; !reflect.DeepEqual(amb.Selectors(), want) {
		t.Errorf("selectors %v, want %v", amb.Selectors(), want)
	}
	if l, err := Find(m.options(), "cursor:cc-local"); err != nil || l.Command != "x" {
		t.Errorf("cursor:cc-local: %v %v", l, err)
	}
	var nf *NotFoundError
	if _, err := Find(m.options(), "cc-locl"); !errors.As(err, &nf) || nf.Suggestion != "cc-local" {
		t.Errorf("a typo: %v", err)
	}
	if _, err := Find(m.options(), "needs"); err == nil || !strings.Contains(err.Error(), "${NOT_SET_HERE}") {
		t.Errorf("a missing variable: %v", err)
	}
	if _, err := Find(m.options(), "corp-tools"); err == nil || !strings.Contains(err.Error(), "SSE") {
		t.Errorf("an SSE server: %v", err)
	}
	if _, err := Find(m.options(), "no-launch"); err == nil || !strings.Contains(err.Error(), "cannot be launched") {
		t.Errorf("an entry with a problem: %v", err)
	}
}
