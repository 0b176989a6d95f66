package wire

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// Era modes: which handshake a connection opens with.
const (
	EraLegacy = "legacy" // the 2025 initialize handshake (the default)
	EraAuto   = "auto"   // probe server/discover, fall back to initialize
)

// discoverProbe bounds the server/discover probe in auto mode. It also covers
// the child's own start-up, so it is generous: a slow modern server must not
// be misread as legacy.
const discoverProbe = 5 * time.Second

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

// ClientOptions configures an mcp-go client for the era.
func (e Era) ClientOptions() []client.ClientOption {
	switch e.Mode {
	case EraAuto:
		return []client.ClientOption{client.WithDiscoverTimeout(discoverProbe)}
	case "pin":
		return []client.ClientOption{client.WithProtocolVersion(e.Pin), client.WithDiscoverTimeout(discoverProbe)}
	}
	return []client.ClientOption{client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION)}
}

// Handshake opens the connection in the era. A pinned revision never falls
// back: a server that cannot speak it fails loudly instead of being quietly
// answered on another revision.
func Handshake(ctx context.Context, c *client.Client, e Era, req mcp.InitializeRequest) (*mcp.InitializeResult, error) {
	if e.Mode == "pin" {
		req.Params.ProtocolVersion = e.Pin
	}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		return nil, err
	}
	if e.Mode == "pin" && res.ProtocolVersion != e.Pin {
		return nil, fmt.Errorf("protocol %s was pinned but the server answered %s (%s); it does not serve the pinned revision. Use protocol auto (--protocol auto from a shell) to accept what it offers",
			e.Pin, res.ProtocolVersion, EraOf(res.ProtocolVersion))
	}
	return res, nil
}

// EraOf names the era of a negotiated protocol version.
func EraOf(version string) string {
	if mcp.IsModernProtocol(version) {
		return "modern era"
	}
	return "legacy era"
}
