package wire

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// Era modes: which handshake a connection opens with.
const (
	EraLegacy = "legacy" // the 2025 initialize handshake (the default)
	EraAuto   = "auto"   // probe server/discover, fall back to initialize
)

// isRevision says s has the YYYY-MM-DD shape of a protocol revision.
func isRevision(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i, r := range s {
		if i != 4 && i != 7 && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// Era is a parsed --protocol value.
type Era struct {
	Mode string // EraLegacy, EraAuto, or "pin"
	Pin  string // the pinned revision, for Mode "pin"
}

// ParseEra reads "legacy", "auto" or a YYYY-MM-DD revision ("" = legacy).
func ParseEra(s string) (Era, error) {
	switch {
	case s == "" || s == EraLegacy:
		return Era{Mode: EraLegacy}, nil
	case s == EraAuto:
		return Era{Mode: EraAuto}, nil
	case isRevision(s):
		if !mcp.IsValidProtocolVersion(s) {
			return Era{}, fmt.Errorf("protocol %q is not a revision run-mcp knows (known: %v); use legacy, auto, or one of those", s, mcp.ValidProtocolVersions)
		}
		return Era{Mode: "pin", Pin: s}, nil
	}
	return Era{}, fmt.Errorf("protocol %q is not legacy, auto, or a revision such as 2026-07-28", s)
}

// String is the value as the user wrote it.
func (e Era) String() string {
	if e.Mode == "pin" {
		return e.Pin
	}
	return e.Mode
}

// EraOf names the era of a negotiated protocol version.
func EraOf(version string) string {
	if mcp.IsModernProtocol(version) {
		return "modern era"
	}
	return "legacy era"
}
