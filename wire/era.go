package wire

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
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

// ClientOptions configures an mcp-go client for what Negotiate settled: a
// legacy connection never probes again; a modern one asks for the version
// the probe agreed.
func (n Negotiated) ClientOptions() []client.ClientOption {
	if n.Legacy() {
		return []client.ClientOption{client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION)}
	}
	return []client.ClientOption{client.WithProtocolVersion(n.Version), client.WithDiscoverTimeout(discoverProbe)}
}

type noInitializeKey struct{}

// InitializeForbidden says a request under ctx belongs to a modern handshake:
// a transport must refuse to send initialize under it, because mcp-go's
// client falls back to initialize on any discover failure, and a connection
// the probe found modern (a pin above all) must fail instead.
func InitializeForbidden(ctx context.Context) bool {
	v, _ := ctx.Value(noInitializeKey{}).(bool)
	return v
}

// ErrInitializeForbidden is what a transport answers an initialize sent on a
// connection the probe found modern.
var ErrInitializeForbidden = errors.New("the server accepted server/discover but refused it on the client's retry; run-mcp does not fall back to initialize on a modern connection. Try again, or use protocol legacy (--protocol legacy from a shell) if the server also serves the 2025 handshake")

// Handshake opens the connection as Negotiate settled. A pinned revision
// never falls back: a server that cannot speak it fails loudly instead of
// being quietly answered on another revision.
func Handshake(ctx context.Context, c *client.Client, e Era, n Negotiated, req mcp.InitializeRequest) (*mcp.InitializeResult, error) {
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	if !n.Legacy() {
		req.Params.ProtocolVersion = n.Version
		ctx = context.WithValue(ctx, noInitializeKey{}, true)
	}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		if n.Legacy() && e.Mode == EraLegacy && modernOnly(err) {
			also := ""
			if errors.Is(err, transport.ErrLegacySSEServer) {
				also = " (or it serves only the deprecated HTTP+SSE transport)"
			}
			return nil, fmt.Errorf("%w. The server refused the 2025 handshake and looks like it speaks only 2026-07-28%s: try protocol auto (--protocol auto from a shell) or protocol \"2026-07-28\"", err, also)
		}
		return nil, err
	}
	if e.Mode == "pin" && res.ProtocolVersion != e.Pin {
		return nil, fmt.Errorf("protocol %s was pinned but the server answered %s (%s); it does not serve the pinned revision. Use protocol auto (--protocol auto from a shell) to accept what it offers",
			e.Pin, res.ProtocolVersion, EraOf(res.ProtocolVersion))
	}
	return res, nil
}

// modernOnly says a failed initialize looks like a server of the 2026-07-28
// era only: it answered -32022 naming modern versions, a result without a
// protocol version, or (over HTTP) a 4xx.
func modernOnly(err error) bool {
	var unsupported mcp.UnsupportedProtocolVersionError
	if errors.As(err, &unsupported) {
		if len(unsupported.Supported) == 0 {
			return unsupported.Version == ""
		}
		for _, v := range unsupported.Supported {
			if mcp.IsModernProtocol(v) {
				return true
			}
		}
		return false
	}
	return errors.Is(err, transport.ErrLegacySSEServer)
}

// EraOf names the era of a negotiated protocol version.
func EraOf(version string) string {
	if mcp.IsModernProtocol(version) {
		return "modern era"
	}
	return "legacy era"
}
