package wire

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestBuildEnvWhitelist(t *testing.T) {
	t.Setenv("PATH", "/usr/bin:/bin")
	t.Setenv("HOME", "/home/tester")
	t.Setenv("SHELL", "/bin/sh")
	t.Setenv("USER", "tester")
	t.Setenv("API_KEY", "sk-must-not-leak")
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("RUN_MCP_TEST_SECRET", "nope")

	got := BuildEnv(nil)
	want := []string{"HOME=/home/tester", "PATH=/usr/bin:/bin", "SHELL=/bin/sh", "USER=tester"}
	if !slices.Equal(got, want) {
		t.Errorf("BuildEnv(nil) = %q, want %q", got, want)
	}

	got = BuildEnv(map[string]string{"API_KEY": "sk-123", "HOME": "/override", "EMPTY": ""})
	want = []string{"API_KEY=sk-123", "EMPTY=", "HOME=/override", "PATH=/usr/bin:/bin", "SHELL=/bin/sh", "USER=tester"}
	if !slices.Equal(got, want) {
		t.Errorf("BuildEnv(explicit) = %q, want %q", got, want)
	}
	for _, kv := range got {
		if strings.Contains(kv, "sk-must-not-leak") || strings.HasPrefix(kv, "LANG=") || strings.HasPrefix(kv, "RUN_MCP_TEST_SECRET=") {
			t.Errorf("BuildEnv leaked %q", kv)
		}
	}
	if !slices.IsSorted(got) {
		t.Errorf("BuildEnv not sorted: %q", got)
	}
}

func TestBuildEnvSkipsUnsetWhitelisted(t *testing.T) {
	t.Setenv("PATH", "/bin")
	t.Setenv("HOME", "/h")
	t.Setenv("SHELL", "")
	t.Setenv("USER", "u")
	// An empty SHELL is set (and passed on); an unset one is not invented.
	got := BuildEnv(nil)
	if !slices.Equal(got, []string{"HOME=/h", "PATH=/bin", "SHELL=", "USER=u"}) {
		t.Errorf("BuildEnv = %q", got)
	}
}

func TestEnvKeysNeverValues(t *testing.T) {
	got := EnvKeys(map[string]string{"B": "secret-b", "A": "secret-a"})
	if !slices.Equal(got, []string{"A", "B"}) {
		t.Errorf("EnvKeys = %q", got)
	}
}

func TestCheckEnvKey(t *testing.T) {
	for _, k := range []string{"A", "_", "API_KEY", "a1", "_9"} {
		if err := CheckEnvKey(k); err != nil {
			t.Errorf("CheckEnvKey(%q) = %v, want nil", k, err)
		}
	}
	for _, k := range []string{"", "1A", "A-B", "A=B", "A\x00B", "A B", "ä", "K.1"} {
		err := CheckEnvKey(k)
		if err == nil {
			t.Errorf("CheckEnvKey(%q) accepted a name that is not an environment variable", k)
			continue
		}
		if k != "" && !strings.Contains(err.Error(), strconv.Quote(k)) {
			t.Errorf("CheckEnvKey(%q) = %q, want the key named", k, err)
		}
	}
}
