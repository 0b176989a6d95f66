package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Stream is one subscriptions/listen stream of a 2026-07-28 connection.
type Stream struct {
	ID      string                  `json:"id"`
	Asked   mcp.SubscriptionFilter  `json:"asked"`
	Honored *mcp.SubscriptionFilter `json:"honored,omitempty"`
	// Err is why the stream ended or never opened.
	Err string `json:"error,omitempty"`
}

// streams tracks the listen streams of one session. The read loop hands it
// acknowledgements, so it locks.
type streams struct {
	mu     sync.Mutex
	seq    atomic.Int64
	open   map[string]*openStream
	wg     sync.WaitGroup
	closed bool
}

type openStream struct {
	Stream
	acked  chan mcp.SubscriptionFilter
	cancel context.CancelFunc
}

// onAck files a notifications/subscriptions/acknowledged by its stream id.
func (ss *streams) onAck(n mcp.JSONRPCNotification) {
	id := subscriptionID(n)
	ss.mu.Lock()
	st := ss.open[id]
	ss.mu.Unlock()
	if st == nil {
		return
	}
	var filter mcp.SubscriptionFilter
	if raw, err := json.Marshal(n.Params.AdditionalFields["notifications"]); err == nil {
		_ = json.Unmarshal(raw, &filter)
	}
	select {
	case st.acked <- filter:
	default:
	}
}

func subscriptionID(n mcp.JSONRPCNotification) string {
	if id, ok := n.Params.Meta[mcp.MetaKeySubscriptionID]; ok {
		return fmt.Sprint(id)
	}
	if meta, ok := n.Params.AdditionalFields["_meta"].(map[string]any); ok {
		return fmt.Sprint(meta[mcp.MetaKeySubscriptionID])
	}
	return ""
}

// Listen opens a subscriptions/listen stream with filter on a 2026-07-28
// connection and waits for the server's acknowledgement, which says what it
// honored. The stream stays open until StopListen or the session ends.
func (c *Conn) Listen(ctx context.Context, filter mcp.SubscriptionFilter) (Stream, error) {
	s, err := c.live(ctx)
	if err != nil {
		return Stream{}, err
	}
	if s.init == nil || !mcp.IsModernProtocol(s.init.ProtocolVersion) {
		return Stream{}, coded(CodeInvalidArgument, "subscriptions/listen belongs to protocol 2026-07-28; this connection speaks %s, where notifications arrive without a stream", s.init.ProtocolVersion)
	}
	return c.listen(ctx, s, filter)
}

// listen opens the stream and waits for its acknowledgement under the
// housekeeping budget (the stream itself stays open: it is long-lived by
// design).
func (c *Conn) listen(ctx context.Context, s *session, filter mcp.SubscriptionFilter) (Stream, error) {
	client := c.env.clientInfo
	budget := c.requestBudget(ctx, s)
	ss := &s.streams
	id := fmt.Sprintf("run-mcp-listen-%d", ss.seq.Add(1))
	ctx, cancel := context.WithCancel(context.Background())
	st := &openStream{Stream: Stream{ID: id, Asked: filter}, acked: make(chan mcp.SubscriptionFilter, 1), cancel: cancel}
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		cancel()
		return Stream{}, errors.New("the connection is closing")
	}
	if ss.open == nil {
		ss.open = map[string]*openStream{}
	}
	ss.open[id] = st
	ss.wg.Add(1)
	ss.mu.Unlock()
	ended := make(chan error, 1)
	go func() {
		defer ss.wg.Done()
		params := map[string]any{"notifications": filter, "_meta": map[string]any{
			mcp.MetaKeyProtocolVersion: s.init.ProtocolVersion, mcp.MetaKeyClientCapabilities: advertised(), mcp.MetaKeyClientInfo: client}}
		_, err := s.rawWithID(ctx, mcp.NewRequestId(id), string(mcp.MethodSubscriptionsListen), params)
		ended <- err
	}()
	select {
	case honored := <-st.acked:
		ss.mu.Lock()
		st.Honored = &honored
		ss.mu.Unlock()
		return st.Stream, nil
	case err := <-ended:
		s.forgetStream(id)
		if err == nil {
			err = errors.New("the server ended the stream before acknowledging it")
		}
		return Stream{ID: id, Asked: filter, Err: err.Error()}, fmt.Errorf("subscriptions/listen: %w", err)
	case <-time.After(budget):
		s.stopStream(id)
		err := c.requestTimedOut(s, string(mcp.MethodSubscriptionsListen), budget, errors.New("no notifications/subscriptions/acknowledged arrived"))
		return Stream{ID: id, Asked: filter, Err: "no acknowledgement within " + fmtDur(budget)}, err
	case <-ctx.Done():
		s.stopStream(id)
		return Stream{ID: id, Asked: filter, Err: "cancelled"}, coded(CodeCancelled, "subscriptions/listen was cancelled before the server acknowledged it")
	}
}

func (s *session) forgetStream(id string) {
	s.streams.mu.Lock()
	delete(s.streams.open, id)
	s.streams.mu.Unlock()
}

// stopStream ends one stream (notifications/cancelled goes to the server).
func (s *session) stopStream(id string) bool {
	s.streams.mu.Lock()
	st := s.streams.open[id]
	delete(s.streams.open, id)
	s.streams.mu.Unlock()
	if st != nil {
		st.cancel()
	}
	return st != nil
}

// stopStreams ends every stream and waits for their goroutines.
func (s *session) stopStreams() {
	s.streams.mu.Lock()
	s.streams.closed = true
	open := s.streams.open
	s.streams.open = nil
	s.streams.mu.Unlock()
	for _, st := range open {
		st.cancel()
	}
	s.streams.wg.Wait()
}

// StopListen ends the stream whose filter names uri (resource
// subscriptions) or the stream with that id.
func (c *Conn) StopListen(ctx context.Context, uriOrID string) (bool, error) {
	s, err := c.live(ctx)
	if err != nil {
		return false, err
	}
	s.streams.mu.Lock()
	var target string
	for id, st := range s.streams.open {
		if id == uriOrID || containsString(st.Asked.ResourceSubscriptions, uriOrID) {
			target = id
			break
		}
	}
	s.streams.mu.Unlock()
	return target != "" && s.stopStream(target), nil
}

// Streams lists the open streams.
func (c *Conn) Streams(ctx context.Context) ([]Stream, error) {
	s, err := ask(ctx, c, func(st *connState) *session { return st.sess })
	if err != nil || s == nil {
		return nil, err
	}
	s.streams.mu.Lock()
	defer s.streams.mu.Unlock()
	out := make([]Stream, 0, len(s.streams.open))
	for _, st := range s.streams.open {
		out = append(out, st.Stream)
	}
	return out, nil
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
