package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Negotiated is what the server/discover probe settled: a modern revision to
// speak, or the legacy initialize handshake.
type Negotiated struct {
	// Version is the 2026-07-28-era revision to speak; "" means legacy.
	Version string
	// Discovered is the server's discover result as sent (nil for legacy).
	Discovered json.RawMessage
}

// Legacy says the connection opens with initialize.
func (n Negotiated) Legacy() bool { return n.Version == "" }

// NotModernError is a pinned revision the server does not speak. The
// connection never falls back to initialize on a pin: it fails with this.
type NotModernError struct {
	Pin       string
	Why       string   // what the server did instead
	Supported []string // what it said it supports, if it said
}

func (e *NotModernError) Error() string {
	msg := fmt.Sprintf("protocol %s was pinned but the server %s, so it does not serve the pinned revision", e.Pin, e.Why)
	if len(e.Supported) > 0 {
		msg += fmt.Sprintf(" (it supports %v)", e.Supported)
	}
	return msg + ". Use protocol auto (--protocol auto from a shell) to accept what it offers, or legacy for a server that predates 2026-07-28; run-mcp did not fall back to initialize"
}

// Negotiate settles the era before the client's handshake, the way the
// revision asks: server/discover first; a result naming a modern version we
// know means modern; a -32022 "Unsupported protocol version" error means
// modern too, retried once with a version the server lists; anything else
// (another error, no answer within the probe) means legacy, or an error for
// a pinned revision, which never falls back. Legacy mode sends nothing.
func Negotiate(ctx context.Context, tr transport.Interface, e Era, info mcp.Implementation, caps mcp.ClientCapabilities) (Negotiated, error) {
	if e.Mode == EraLegacy {
		return Negotiated{}, nil
	}
	want := mcp.LATEST_PROTOCOL_VERSION
	if e.Mode == "pin" {
		want = e.Pin
	}
	legacy := func(why string, supported []string) (Negotiated, error) {
		if httpConn, ok := tr.(transport.HTTPConnection); ok {
			httpConn.SetProtocolVersion("")
		}
		if e.Mode == "pin" {
			return Negotiated{}, &NotModernError{Pin: e.Pin, Why: why, Supported: supported}
		}
		return Negotiated{}, nil
	}
	for attempt := 0; ; attempt++ {
		resp, err := discover(ctx, tr, attempt, want, info, caps)
		switch {
		case err != nil && ctx.Err() != nil:
			return Negotiated{}, ctx.Err()
		case err != nil && errors.Is(err, context.DeadlineExceeded):
			return legacy(fmt.Sprintf("did not answer server/discover within %s", discoverProbe), nil)
		case err != nil:
			return legacy("could not be asked server/discover: "+err.Error(), nil)
		case resp.Error != nil && resp.Error.Code == mcp.UNSUPPORTED_PROTOCOL_VERSION:
			supported := supportedOf(resp.Error.Data)
			next := choose(e, supported)
			if next == "" {
				return legacy(fmt.Sprintf("answered server/discover at %s with %d %q", want, resp.Error.Code, resp.Error.Message), supported)
			}
			if attempt > 0 {
				return Negotiated{}, fmt.Errorf("the server refused server/discover at %s twice with %d %q although it lists %v; it contradicts itself. Try protocol legacy (--protocol legacy from a shell)", next, resp.Error.Code, resp.Error.Message, supported)
			}
			want = next
		case resp.Error != nil:
			return legacy(fmt.Sprintf("answered server/discover with error %d %q", resp.Error.Code, resp.Error.Message), nil)
		default:
			var res struct {
				SupportedVersions []string `json:"supportedVersions"`
			}
			_ = json.Unmarshal(resp.Result, &res)
			if slices.Contains(res.SupportedVersions, want) {
				return Negotiated{Version: want, Discovered: resp.Result}, nil
			}
			next := choose(e, res.SupportedVersions)
			if next == "" || attempt > 0 {
				// A "result" without the versions is not a discover result
				// (some servers answer every method with their initialize).
				return legacy("answered server/discover without a supported modern version", res.SupportedVersions)
			}
			want = next
		}
	}
}

// discover sends one server/discover at version (its id is a string, apart
// from the client's numeric ids), with the per-request _meta
// and, over HTTP, the headers the revision requires.
func discover(ctx context.Context, tr transport.Interface, attempt int, version string, info mcp.Implementation, caps mcp.ClientCapabilities) (*transport.JSONRPCResponse, error) {
	if httpConn, ok := tr.(transport.HTTPConnection); ok {
		httpConn.SetProtocolVersion(version)
	}
	meta := map[string]any{mcp.MetaKeyProtocolVersion: version, mcp.MetaKeyClientCapabilities: caps}
	if info.Name != "" {
		meta[mcp.MetaKeyClientInfo] = info
	}
	header := http.Header{}
	for k, v := range mcp.StandardHeaders(version, mcp.MethodServerDiscover, nil) {
		header.Set(k, v)
	}
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(fmt.Sprintf("run-mcp-discover-%d", attempt+1)),
		Method: string(mcp.MethodServerDiscover), Params: map[string]any{"_meta": meta}, Header: header}
	pctx, cancel := context.WithTimeout(ctx, discoverProbe)
	defer cancel()
	return tr.SendRequest(pctx, req)
}

// supportedOf reads data.supported of a -32022 error.
func supportedOf(data any) []string {
	b, err := json.Marshal(data)
	if err != nil {
		return nil
	}
	var d mcp.UnsupportedProtocolVersionData
	_ = json.Unmarshal(b, &d)
	return d.Supported
}

// choose picks the version to retry with from what the server lists: the pin
// if listed, else (auto) the newest modern revision run-mcp knows.
func choose(e Era, supported []string) string {
	if e.Mode == "pin" {
		if slices.Contains(supported, e.Pin) {
			return e.Pin
		}
		return ""
	}
	best := ""
	for _, v := range supported {
		if mcp.IsModernProtocol(v) && mcp.IsValidProtocolVersion(v) && v > best {
			best = v
		}
	}
	return best
}
