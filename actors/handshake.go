package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/wire"
)

// The handshake settles the era first, the way the 2026-07-28 revision asks:
// in auto or pinned mode, server/discover; a result naming a modern version
// run-mcp speaks means modern; -32022 "Unsupported protocol version" means
// modern too, retried once with a version the server lists; any other
// answer means legacy (or, pinned, a failure: a pin never falls back). A
// server that does not answer the probe within the connect budget is not
// taken for a legacy one: the connect fails saying so. Legacy mode sends no
// probe at all. Then a legacy connection runs initialize.

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

// LegacyRefusedError is a server that refused the 2025 initialize the way
// a server of the 2026-07-28 revision alone does ("Unsupported protocol
// version"). Its text is the server's answer only: each front end adds
// what to try, in the words of its own options, once.
type LegacyRefusedError struct{ Err error }

func (e *LegacyRefusedError) Error() string { return e.Err.Error() }

func (e *LegacyRefusedError) Unwrap() error { return e.Err }

// probeSilentError is a server/discover that got no answer within the
// connect budget.
type probeSilentError struct{ err error }

func (e *probeSilentError) Error() string {
	return "the server did not answer server/discover: " + e.err.Error()
}

func (e *probeSilentError) Unwrap() error { return e.err }

// handshake opens s as its Config's era asks, within ctx (the connect
// budget), and records what was settled.
func (c *Conn) handshake(ctx context.Context, s *session) error {
	era := s.cfg.Era
	if era.Mode != wire.EraLegacy {
		version, discovered, why, err := c.negotiate(ctx, s, era)
		if err != nil {
			return err
		}
		if version != "" {
			return c.openModern(ctx, s, version, discovered, why)
		}
		s.negotiation = why
	}
	return c.initialize(ctx, s)
}

// negotiate runs the server/discover probe. An empty version means legacy;
// why says what the server answered.
func (c *Conn) negotiate(ctx context.Context, s *session, era wire.Era) (version string, discovered json.RawMessage, why string, err error) {
	want := mcp.LATEST_PROTOCOL_VERSION
	if era.Mode == "pin" {
		want = era.Pin
	}
	legacy := func(what string, supported []string) (string, json.RawMessage, string, error) {
		if era.Mode == "pin" {
			return "", nil, "", &NotModernError{Pin: era.Pin, Why: what, Supported: supported}
		}
		return "", nil, "auto: the server " + what + ", so run-mcp fell back to the 2025 initialize handshake", nil
	}
	for attempt := 0; ; attempt++ {
		meta := map[string]any{mcp.MetaKeyProtocolVersion: want, mcp.MetaKeyClientCapabilities: advertised(), mcp.MetaKeyClientInfo: c.env.clientInfo}
		res, err := c.exchangeAt(ctx, s, string(mcp.MethodServerDiscover), map[string]any{"_meta": meta}, want)
		var te *TargetError
		switch {
		case err != nil && errors.As(err, &te) && te.Code == mcp.UNSUPPORTED_PROTOCOL_VERSION:
			supported := supportedOf(te.Data)
			next := choose(era, supported)
			if next == "" {
				return legacy(fmt.Sprintf("answered server/discover at %s with %d %q", want, te.Code, te.Message), supported)
			}
			if attempt > 0 {
				return "", nil, "", fmt.Errorf("the server refused server/discover at %s twice with %d %q although it lists %v; it contradicts itself. Try protocol legacy (--protocol legacy from a shell)", next, te.Code, te.Message, supported)
			}
			want = next
		case err != nil && errors.As(err, &te):
			return legacy(fmt.Sprintf("answered server/discover with error %d %q", te.Code, te.Message), nil)
		case err != nil && refusedOverHTTP(err):
			return legacy("refused server/discover ("+err.Error()+")", nil)
		case err != nil && errors.Is(context.Cause(ctx), errBudgetSpent):
			return "", nil, "", &probeSilentError{err: err}
		case err != nil:
			return "", nil, "", err
		default:
			var r struct {
				SupportedVersions []string `json:"supportedVersions"`
			}
			_ = json.Unmarshal(res, &r)
			if slices.Contains(r.SupportedVersions, want) {
				return want, res, fmt.Sprintf("the server answered server/discover listing %v", r.SupportedVersions), nil
			}
			next := choose(era, r.SupportedVersions)
			if next == "" || attempt > 0 {
				// A "result" without the versions is no discover result (some
				// servers answer every method with their initialize).
				return legacy("answered server/discover without a supported modern version", r.SupportedVersions)
			}
			want = next
		}
	}
}

// openModern records a 2026-07-28 connection: there is no initialize; what
// discover said stands in for it.
func (c *Conn) openModern(ctx context.Context, s *session, version string, discovered json.RawMessage, why string) error {
	var d struct {
		Capabilities mcp.ServerCapabilities `json:"capabilities"`
		Instructions string                 `json:"instructions"`
		Meta         map[string]any         `json:"_meta"`
	}
	if err := json.Unmarshal(discovered, &d); err != nil {
		return fmt.Errorf("the server's answer to server/discover is not a discover result: %s", wire.JSONWords(err))
	}
	init := &mcp.InitializeResult{ProtocolVersion: version, Capabilities: d.Capabilities, Instructions: d.Instructions}
	if raw, ok := d.Meta[mcp.MetaKeyServerInfo]; ok {
		b, _ := json.Marshal(raw)
		_ = json.Unmarshal(b, &init.ServerInfo)
	}
	return c.do(context.WithoutCancel(ctx), func(*connState) {
		s.protocol, s.modern, s.init, s.negotiation = version, true, init, why
		s.started = time.Now()
	})
}

// initialize runs the 2025 handshake: initialize, then
// notifications/initialized.
func (c *Conn) initialize(ctx context.Context, s *session) error {
	params := map[string]any{"protocolVersion": mcp.LATEST_LEGACY_PROTOCOL_VERSION, "capabilities": advertised(), "clientInfo": c.env.clientInfo}
	raw, err := c.exchangeAt(ctx, s, string(mcp.MethodInitialize), params, "")
	if err != nil {
		if s.cfg.Era.Mode == wire.EraLegacy && modernOnly(err) {
			return &LegacyRefusedError{Err: err}
		}
		return err
	}
	init, err := decodeInit(raw)
	if err != nil {
		return err
	}
	if init.ProtocolVersion == "" {
		return fmt.Errorf("the server answered initialize without a protocolVersion; a 2025-era server names the revision it speaks")
	}
	if e := s.cfg.Era; e.Mode == "pin" && init.ProtocolVersion != e.Pin {
		return fmt.Errorf("protocol %s was pinned but the server answered %s (%s); it does not serve the pinned revision. Use protocol auto (--protocol auto from a shell) to accept what it offers",
			e.Pin, init.ProtocolVersion, wire.EraOf(init.ProtocolVersion))
	}
	return c.do(context.WithoutCancel(ctx), func(st *connState) {
		s.protocol, s.init = init.ProtocolVersion, init
		s.started = time.Now()
		c.notify(s, string(mcp.MethodNotificationInitialized), nil)
		if s.http != nil {
			s.http.Listen()
		}
	})
}

// refusedOverHTTP says an HTTP server answered a request with a client
// error status: it answered, and not with the revision asked for.
func refusedOverHTTP(err error) bool {
	var se *wire.StatusError
	if _, auth := challengeOf(err); auth {
		return false // it wants authorization, not another revision
	}
	return errors.As(err, &se) && se.Code/100 == 4 && !se.SessionExpired
}

// modernOnly says a failed initialize looks like a server of the 2026-07-28
// era only: it answered -32022 naming modern versions.
func modernOnly(err error) bool {
	var te *TargetError
	if !errors.As(err, &te) {
		return false
	}
	if te.Code != mcp.UNSUPPORTED_PROTOCOL_VERSION {
		// Servers of the 2026-07-28 revision alone also answer -32602
		// with these words (3.0 went by the words).
		return strings.Contains(strings.ToLower(te.Message), "unsupported protocol version")
	}
	supported := supportedOf(te.Data)
	if len(supported) == 0 {
		return true
	}
	for _, v := range supported {
		if mcp.IsModernProtocol(v) {
			return true
		}
	}
	return false
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
func choose(e wire.Era, supported []string) string {
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
