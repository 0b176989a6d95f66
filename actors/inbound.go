package actors

import (
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/wire"
)

// inbound is what a session's channel handed over: the answers to run-mcp's
// requests, the target's notifications and requests, its stdout noise, and
// at last the channel's end. The actor reads it straight from the channel's
// sink (loop), not through the mailbox.
type inbound struct {
	s  *session
	in wire.Inbound
}

func (m inbound) apply(c *Conn, st *connState) {
	s := m.s
	if s == nil {
		return
	}
	s.evidence.File(m.in)
	s.redirects = append(s.redirects, m.in.Redirects...)
	for i := range m.in.Messages {
		c.message(st, s, &m.in.Messages[i])
	}
	for _, f := range m.in.Failed {
		if p := st.pending[f.Key]; p != nil && p.sess == s {
			delete(st.pending, f.Key)
			c.failPending(st, p, f.Err)
		}
	}
	if m.in.Closed {
		c.channelClosed(st, s, m.in.Err)
	}
}

func (c *Conn) message(st *connState, s *session, m *wire.Message) {
	switch {
	case m.IsRequest() || m.Invalid != "":
		c.targetRequest(st, s, m)
	case m.IsNotification():
		c.notification(st, s, m)
	case m.ID != nil:
		c.response(st, s, m)
	default:
		s.evidence.AddError(wire.TransportError{Time: m.Time, Line: m.Line,
			Message: fmt.Sprintf("an error without an id (%d %s): it answers no request", errCode(m.Error), errMessage(m.Error))})
	}
}

func errCode(e *wire.RPCError) int {
	if e == nil {
		return 0
	}
	return e.Code
}

func errMessage(e *wire.RPCError) string {
	if e == nil {
		return ""
	}
	return e.Message
}

// response hands an answer to whoever waits for it.
func (c *Conn) response(st *connState, s *session, m *wire.Message) {
	key := wire.IDKey(m.ID)
	p := st.pending[key]
	if p == nil || p.sess != s {
		if !st.late[key] {
			s.evidence.AddError(wire.TransportError{Time: m.Time, Line: m.Line,
				Message: "a response to a request run-mcp never sent (id " + key + ")"})
		}
		return
	}
	switch {
	case p.call != nil:
		c.callAnswered(st, p.call, m)
	case p.reply != nil:
		delete(st.pending, key)
		if m.Error != nil {
			p.reply <- answer{err: targetError(m.Error)}
		} else {
			p.reply <- answer{result: m.Result}
		}
	case p.stream != nil:
		delete(st.pending, key)
		p.stream.answered(m)
	case p.refresh != nil:
		delete(st.pending, key)
		c.refreshPage(st, p.refresh, m)
	}
}

// notification files what the target announced, acts on what concerns
// run-mcp, and forwards it to the host.
func (c *Conn) notification(st *connState, s *session, m *wire.Message) {
	if s.modern && isChangeNotification(m.Method) && subscriptionID(m.Params) == "" {
		// Still delivered: the evidence is that it came, not what it said.
		s.evidence.AddError(wire.TransportError{Time: m.Time, Line: m.Line, EraRule: true,
			Message: fmt.Sprintf("an unsolicited %s on a 2026-07-28 connection: that era sends change notifications only on a subscriptions/listen stream, tagged with its subscription id", m.Method)})
	}
	switch m.Method {
	case string(mcp.MethodNotificationProgress):
		c.progress(st, m)
	case string(mcp.MethodNotificationToolsListChanged):
		st.tools = nil // the next checked call lists the tools afresh
	case mcp.MethodNotificationSubscriptionsAcknowledged:
		c.acknowledged(st, s, m)
	case mcp.MethodNotificationTasksStatus:
		s.tasks.onStatus(m.Params)
	case string(mcp.MethodNotificationCancelled):
		c.withdrawn(st, s, m.Params)
	}
	st.notes.add(m.Method, m.Params, m.Time)
	c.env.host.Notify(c.name, m.Method, m.Params)
}

// isChangeNotification names the notifications the 2026-07-28 era sends
// only on a subscriptions/listen stream.
func isChangeNotification(method string) bool {
	switch mcp.MCPMethod(method) {
	case mcp.MethodNotificationToolsListChanged, mcp.MethodNotificationPromptsListChanged,
		mcp.MethodNotificationResourcesListChanged, mcp.MethodNotificationResourceUpdated:
		return true
	}
	return false
}

// subscriptionID reads params._meta's subscription id ("" when absent).
func subscriptionID(params json.RawMessage) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	raw, ok := p.Meta[mcp.MetaKeySubscriptionID]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// progress files a notifications/progress under the call whose token it
// names; a target may keep sending progress after a call ended, which is
// logged but attributed to nothing.
func (c *Conn) progress(st *connState, m *wire.Message) {
	var p struct {
		Token    json.RawMessage `json:"progressToken"`
		Progress float64         `json:"progress"`
		Total    float64         `json:"total"`
		Message  string          `json:"message"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return
	}
	var token string
	if json.Unmarshal(p.Token, &token) != nil {
		token = string(p.Token)
	}
	call := st.byToken[token]
	if call == nil || call.done {
		return
	}
	ev := ProgressEvent{At: m.Time.Sub(call.started), Progress: p.Progress, Total: p.Total, Message: p.Message}
	ev.AtMS = ev.At.Milliseconds()
	call.progress = append(call.progress, ev)
	select {
	case call.req.Events <- CallEvent{ID: call.id, Tag: call.req.Tag, Progress: &ev}:
	default: // a caller that cannot keep up misses an update; the outcome lists them all
	}
	if call.settling && !incomplete(ev) {
		c.finish(st, call, call.result, nil)
	}
}
