package session

import (
	"fmt"
	"time"

	"github.com/run-mcp/run-mcp/actors"
)

// Margin is what a client adds to an operation's budget before it takes the
// daemon for stuck: the daemon's own work around the request (reading the
// server's last stderr, encoding the reply) and a busy machine's
// scheduling. The daemon answers every request to the server within that
// request's budget (a silent server is reported as a timeout), so a reply
// later than budget plus margin says the daemon itself is not answering.
const Margin = 5 * time.Second

// stopBudget bounds stopping a server before a reconnect: stdin's close and
// its grace, SIGTERM, SIGKILL 2 s later, and a supervisor that does not
// answer being killed after 5 s.
const stopBudget = 10 * time.Second

// Timeouts are the budgets a session was started with (zero: the
// defaults): a command that gives no --request-timeout gets the session's.
type Timeouts struct{ Connect, Request time.Duration }

// Timeouts are the record's budgets (zero for a record that predates them).
func (r *Record) Timeouts() Timeouts {
	return Timeouts{Connect: time.Duration(r.ConnectTimeoutMS) * time.Millisecond, Request: time.Duration(r.RequestTimeoutMS) * time.Millisecond}
}

// Budget is the longest the daemon takes over r when nothing is stuck: the
// budgets of the requests the operation sends the server in turn, on a
// session started with t. what says it in the user's words, for a message
// about a daemon that did not answer in time ("the call's 1000 ms and a
// listing's 1000 ms"). Ping, close and stderr send the server nothing:
// their budget is 0, and the client waits Margin alone.
func (r *Request) Budget(t Timeouts) (budget time.Duration, what string) {
	call := actors.DefaultCallTimeout
	if r.Options.TimeoutMS > 0 {
		call = time.Duration(r.Options.TimeoutMS) * time.Millisecond
	}
	req := t.Request
	if r.Options.RequestTimeoutMS > 0 {
		req = time.Duration(r.Options.RequestTimeoutMS) * time.Millisecond
	}
	if req <= 0 {
		req = actors.DefaultRequestTimeout
	}
	connect := t.Connect
	if connect <= 0 {
		connect = actors.DefaultConnectTimeout
	}
	requests := func(n int) (time.Duration, string) {
		if n == 1 {
			return req, fmt.Sprintf("one request's %s (--request-timeout)", ms(req))
		}
		return time.Duration(n) * req, fmt.Sprintf("%d requests' %s each (--request-timeout)", n, ms(req))
	}
	switch r.Op {
	case OpCall, OpRead, OpGetPrompt:
		// A call the cached tool list does not know lists the tools first.
		return call + req, fmt.Sprintf("the call's %s (--timeout) and a listing's %s (--request-timeout)", ms(call), ms(req))
	case OpListTools, OpListPrompts, OpDescribe:
		return requests(1)
	case OpListResources:
		return requests(2) // the resources, then the templates
	case OpValidate:
		// The listings, a subscribe, and a listen stream on 2026-07-28.
		return requests(6)
	case OpReconnect:
		// Stop the server, start it, and list what it offers (four kinds).
		return stopBudget + connect + 4*req, fmt.Sprintf("stopping the server (up to %s), the handshake's %s (--connect-timeout) and four listings' %s each (--request-timeout)",
			stopBudget, ms(connect), ms(req))
	}
	return 0, "nothing: the daemon answers it without asking the server"
}

// ms is a budget as the flags take it.
func ms(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }
