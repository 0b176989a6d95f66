package cli

import "testing"

func TestTerminalSafeShowsControlsAndKeepsText(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\twith a tab\nand a newline": "plain text\twith a tab\nand a newline",
		"café ✓ 日本":                             "café ✓ 日本",
		"\x1b[2Jclear":                          `\x1b[2Jclear`,
		"\x1b]0;title\x07":                      `\x1b]0;title\x07`,
		"nul\x00 del\x7f cr\r":                  `nul\x00 del\x7f cr\x0d`,
		"c1 \u009b csi":                         `c1 \u009b csi`,
		"latin-1 \xe9 byte":                     `latin-1 \xe9 byte`,
	} {
		got := terminalSafe(in)
		if got != want {
			t.Errorf("terminalSafe(%q) = %q, want %q", in, got, want)
		}
		if again := terminalSafe(got); again != got {
			t.Errorf("terminalSafe is not idempotent on %q: %q", got, again)
		}
	}
}
