package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/wire"
)

// Stream is one subscriptions/listen stream of a 2026-07-28 connection.
type Stream struct {
	ID      string                  `json:"id"`
	Asked   mcp.SubscriptionFilter  `json:"asked"`
	Honored *mcp.SubscriptionFilter `json:"honored,omitempty"`
	// Err is why the stream ended or never opened.
	Err string `json:"error,omitempty"`
}

// stream is an open one, owned by the actor: the listen request stays
// pending for as long as the stream lives.
type stream struct {
	Stream
	key   string
	ended bool
	// acked tells the operation that opened it what the server honored, or
	// that the stream ended first (buffered: the actor never waits).
	acked chan error
}

func (str *stream) end(err error) {
	if str.ended {
		return
	}
	str.ended = true
	if err != nil {
		str.Err = err.Error()
	}
	select {
	case str.acked <- fmt.Errorf("the stream ended before the server acknowledged it: %w", err):
	default:
	}
}

// answered is the server ending the stream with its response.
func (str *stream) answered(m *wire.Message) {
	if m.Error != nil {
		str.end(targetError(m.Error))
		return
	}
	str.end(errors.New("the server ended the stream"))
}

// acknowledged files a notifications/subscriptions/acknowledged under its
// stream and tells whoever opened it what the server honored.
func (c *Conn) acknowledged(_ *connState, s *session, m *wire.Message) {
	str := s.streams[subscriptionID(m.Params)]
	if str == nil || str.Honored != nil {
		return
	}
	var p struct {
		Notifications mcp.SubscriptionFilter `json:"notifications"`
	}
	_ = json.Unmarshal(m.Params, &p)
	str.Honored = &p.Notifications
	select {
	case str.acked <- nil:
	default:
	}
}

// Listen opens a subscriptions/listen stream with filter on a 2026-07-28
// connection and waits for the server's acknowledgement, which says what it
// honored. The stream stays open until StopListen or the session ends.
func (c *Conn) Listen(ctx context.Context, filter mcp.SubscriptionFilter) (Stream, error) {
	s, err := c.live(ctx)
	if err != nil {
		return Stream{}, err
	}
	if !s.modern {
		return Stream{}, coded(CodeInvalidArgument, "subscriptions/listen belongs to protocol 2026-07-28; this connection speaks %s, where notifications arrive without a stream", s.protocol)
	}
	return c.listen(ctx, s, filter)
}

// listen opens the stream and waits for its acknowledgement under the
// housekeeping budget (the stream itself stays open: it is long-lived by
// design).
func (c *Conn) listen(ctx context.Context, s *session, filter mcp.SubscriptionFilter) (Stream, error) {
	budget := c.requestBudget(ctx, s.cfg)
	str := &stream{Stream: Stream{Asked: filter}, acked: make(chan error, 1)}
	var sendErr error
	err := c.do(ctx, func(st *connState) {
		if s.retired || s.channelEnded {
			sendErr = &wire.ClosedError{Reason: s.chanErr}
			return
		}
		params := s.withMeta(c.env.clientInfo, map[string]any{"notifications": filter})
		str.key, sendErr = c.send(st, s, &pending{method: string(mcp.MethodSubscriptionsListen), stream: str}, params, "")
		if sendErr == nil {
			_ = json.Unmarshal([]byte(str.key), &str.ID)
			s.streams[str.ID] = str
		}
	})
	if err == nil {
		err = sendErr
	}
	if err != nil {
		return Stream{Asked: filter, Err: err.Error()}, fmt.Errorf("subscriptions/listen: %w", err)
	}
	timer := time.NewTimer(budget)
	defer timer.Stop()
	select {
	case err := <-str.acked:
		return c.streamCopy(ctx, s, str.ID), wrapListen(err)
	case <-timer.C:
		c.stopStream(ctx, s, str.ID, "no acknowledgement within run-mcp's budget")
		err := c.requestTimedOut(ctx, s, string(mcp.MethodSubscriptionsListen), budget, errors.New("no notifications/subscriptions/acknowledged arrived"))
		return Stream{ID: str.ID, Asked: filter, Err: "no acknowledgement within " + fmtDur(budget)}, err
	case <-ctx.Done():
		c.stopStream(context.WithoutCancel(ctx), s, str.ID, "cancelled by the client")
		return Stream{ID: str.ID, Asked: filter, Err: "cancelled"}, coded(CodeCancelled, "subscriptions/listen was cancelled before the server acknowledged it")
	}
}

func wrapListen(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("subscriptions/listen: %w", err)
}

// streamCopy reads a stream's public part on the actor.
func (c *Conn) streamCopy(ctx context.Context, s *session, id string) Stream {
	out, _ := ask(context.WithoutCancel(ctx), c, func(*connState) Stream {
		if str := s.streams[id]; str != nil {
			cp := str.Stream
			if str.ended {
				delete(s.streams, id)
			}
			return cp
		}
		return Stream{ID: id}
	})
	return out
}

// stopStream ends one stream: notifications/cancelled goes to the server.
func (c *Conn) stopStream(ctx context.Context, s *session, id, reason string) bool {
	stopped, _ := ask(ctx, c, func(st *connState) bool {
		str := s.streams[id]
		if str == nil {
			return false
		}
		delete(s.streams, id)
		if !str.ended {
			c.cancelRequest(st, str.key, reason)
			str.end(errors.New("run-mcp closed it"))
		}
		return true
	})
	return stopped
}

// StopListen ends the stream whose filter names uri (resource
// subscriptions) or the stream with that id.
func (c *Conn) StopListen(ctx context.Context, uriOrID string) (bool, error) {
	s, err := c.live(ctx)
	if err != nil {
		return false, err
	}
	id, err := ask(ctx, c, func(*connState) string {
		for id, str := range s.streams {
			if id == uriOrID || containsString(str.Asked.ResourceSubscriptions, uriOrID) {
				return id
			}
		}
		return ""
	})
	if err != nil || id == "" {
		return false, err
	}
	return c.stopStream(ctx, s, id, "unsubscribed by the client"), nil
}

// Streams lists the open streams.
func (c *Conn) Streams(ctx context.Context) ([]Stream, error) {
	return ask(ctx, c, func(st *connState) []Stream {
		if st.sess == nil {
			return nil
		}
		out := make([]Stream, 0, len(st.sess.streams))
		for _, str := range st.sess.streams {
			out = append(out, str.Stream)
		}
		return out
	})
}

// listenForChanges opens, on a 2026-07-28 connection, one listen stream for
// every list_changed kind the server advertises; in that era a server sends
// change notifications only on such a stream.
func (c *Conn) listenForChanges(ctx context.Context, s *session) *Stream {
	if !s.modern || s.init == nil {
		return nil
	}
	caps := s.init.Capabilities
	var f mcp.SubscriptionFilter
	f.ToolsListChanged = caps.Tools != nil && caps.Tools.ListChanged
	f.PromptsListChanged = caps.Prompts != nil && caps.Prompts.ListChanged
	f.ResourcesListChanged = caps.Resources != nil && caps.Resources.ListChanged
	if f.IsEmpty() {
		return nil
	}
	st, err := c.listen(ctx, s, f)
	if err != nil {
		c.env.log.Warn("listen stream failed", "connection", c.name, "err", err)
	}
	return &st
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Describe says what a filter asks for, for replies.
func Describe(f mcp.SubscriptionFilter) string {
	var parts []string
	if f.ToolsListChanged {
		parts = append(parts, "toolsListChanged")
	}
	if f.PromptsListChanged {
		parts = append(parts, "promptsListChanged")
	}
	if f.ResourcesListChanged {
		parts = append(parts, "resourcesListChanged")
	}
	if len(f.ResourceSubscriptions) > 0 {
		parts = append(parts, "resourceSubscriptions ["+strings.Join(f.ResourceSubscriptions, ", ")+"]")
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// Unhonored names what was asked and not honored ("" when everything was).
func Unhonored(asked, honored mcp.SubscriptionFilter) string {
	var missing mcp.SubscriptionFilter
	missing.ToolsListChanged = asked.ToolsListChanged && !honored.ToolsListChanged
	missing.PromptsListChanged = asked.PromptsListChanged && !honored.PromptsListChanged
	missing.ResourcesListChanged = asked.ResourcesListChanged && !honored.ResourcesListChanged
	for _, uri := range asked.ResourceSubscriptions {
		if !containsString(honored.ResourceSubscriptions, uri) {
			missing.ResourceSubscriptions = append(missing.ResourceSubscriptions, uri)
		}
	}
	if missing.IsEmpty() {
		return ""
	}
	return Describe(missing)
}
