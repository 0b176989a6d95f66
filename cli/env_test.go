package cli

import (
	"strings"
	"testing"
)

func TestEnvTokensNeverEchoValues(t *testing.T) {
	const secret = `sk-sec\ret`
	for _, tc := range []struct {
		token string
		want  []string // what the message must say
	}{
		{"K-1=" + secret, []string{"--env expects KEY=VALUE", `"K-1" is not a valid environment variable name`, "value is not shown"}},
		{"=" + secret, []string{"--env expects KEY=VALUE", "name is empty"}},
		{"1K=" + secret, []string{`"1K" is not a valid`}},
		{"K\x00X=" + secret, []string{`"K\x00X" is not a valid`}},
		{"API_KEY", []string{`--env expects KEY=VALUE, got "API_KEY" with no "="`}},
		{secret, []string{"with no \"=\" (not shown: it may be a secret)"}},
	} {
		_, _, err := parseEnvToken(tc.token)
		if CodeOf(err) != ExitUsage {
			t.Errorf("--env %q: want exit 64, got %v", tc.token, err)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "sk-sec") || strings.Contains(msg, `ret`) && strings.Contains(msg, `\r`) {
			t.Errorf("--env %q: the message repeats the value: %q", tc.token, msg)
		}
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("--env %q: %q does not say %q", tc.token, msg, w)
			}
		}
	}
	k, v, err := parseEnvToken("K=" + secret + "=x")
	if err != nil || k != "K" || v != secret+"=x" {
		t.Errorf("a value with a backslash and = is fine: got %q %q %v", k, v, err)
	}
}
