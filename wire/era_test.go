package wire

import (
	"strings"
	"testing"
)

func TestParseEra(t *testing.T) {
	for _, tc := range []struct {
		in       string
		mode     string
		pin      string
		asString string
	}{
		{"", EraLegacy, "", "legacy"},
		{"legacy", EraLegacy, "", "legacy"},
		{"auto", EraAuto, "", "auto"},
		{"2026-07-28", "pin", "2026-07-28", "2026-07-28"},
		{"2025-11-25", "pin", "2025-11-25", "2025-11-25"},
	} {
		e, err := ParseEra(tc.in)
		if err != nil {
			t.Errorf("ParseEra(%q): %v", tc.in, err)
			continue
		}
		if e.Mode != tc.mode || e.Pin != tc.pin || e.String() != tc.asString {
			t.Errorf("ParseEra(%q) = %+v (%q), want mode %q pin %q (%q)", tc.in, e, e.String(), tc.mode, tc.pin, tc.asString)
		}
	}
	for in, want := range map[string]string{
		"2024-01-01": "not a revision run-mcp knows",
		"modern":     "is not legacy, auto, or a revision",
		"2026-7-28":  "is not legacy, auto, or a revision",
		"LEGACY":     "is not legacy, auto, or a revision",
	} {
		_, err := ParseEra(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseEra(%q) error = %v, want it to say %q", in, err, want)
		}
	}
}

func TestEraOf(t *testing.T) {
	for v, want := range map[string]string{"2026-07-28": "modern era", "2025-11-25": "legacy era", "2024-11-05": "legacy era"} {
		if got := EraOf(v); got != want {
			t.Errorf("EraOf(%q) = %q, want %q", v, got, want)
		}
	}
}
