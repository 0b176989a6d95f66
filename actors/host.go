package actors

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
)

// Host is whoever stands behind run-mcp: the agent's MCP client (the agent
// server relays to it) or nobody (headless, which answers deterministically).
type Host interface {
	// Caps says what the host declared, so run-mcp knows what a target's
	// request will reach.
	Caps() HostCaps
	// Elicit relays a form (or URL) request; it may block until a person
	// answers.
	Elicit(ctx context.Context, conn string, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error)
	// Sample relays a sampling request.
	Sample(ctx context.Context, conn string, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)
	// Notify forwards a notification the target sent. It must not block: it
	// is called from the target's read loop.
	Notify(conn string, n mcp.JSONRPCNotification)
}

// HostCaps is what the host declared.
type HostCaps struct {
	ElicitForm bool
	ElicitURL  bool
	Sampling   bool
}

// ErrNoHost is what a request for input meets when no host can answer it.
var ErrNoHost = errors.New("no host can answer")

// Headless is the host of a headless call: nobody is there, so elicitation is
// declined and sampling refused at once, never left hanging.
type Headless struct{}

// Caps declares nothing.
func (Headless) Caps() HostCaps { return HostCaps{} }

// Elicit declines.
func (Headless) Elicit(context.Context, string, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}, nil
}

// Sample refuses.
func (Headless) Sample(context.Context, string, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return nil, ErrNoHost
}

// Notify drops the notification (the notification log still has it).
func (Headless) Notify(string, mcp.JSONRPCNotification) {}
