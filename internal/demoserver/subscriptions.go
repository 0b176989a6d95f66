package demoserver

import (
	"context"
	"fmt"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// subscriptions remembers who asked for notifications/resources/updated.
// mcp-go's stdio session keeps no record of resource subscriptions, so we
// follow them through hooks: resources/subscribe and unsubscribe in the
// legacy era, and the life of each subscriptions/listen request in
// 2026-07-28, whose notifications must carry the listen request's id.
type subscriptions struct {
	mu      sync.Mutex
	legacy  map[string]bool              // URI → subscribed with resources/subscribe
	listens map[string]map[string]listen // URI → listen key → the stream
}

// listen is one subscriptions/listen stream: its request id, and the
// session its notifications go to. Over Streamable HTTP in 2026-07-28 each
// request has a session of its own, so the stream's is not the session of
// the call that changes the resource (bump_counter's): sent there, the
// update rode the call's own response and was lost whenever the response
// went first.
type listen struct {
	id      any
	session server.ClientSession
}

// update is one notifications/resources/updated and where it goes (nil:
// the session of the call that made it).
type update struct {
	params  mcp.NotificationParams
	session server.ClientSession
}

func newSubscriptions() subscriptions {
	return subscriptions{legacy: map[string]bool{}, listens: map[string]map[string]listen{}}
}

// watch installs the hooks that keep the record current.
func (s *subscriptions) watch(hooks *server.Hooks) {
	hooks.AddAfterSubscribe(func(_ context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		s.setLegacy(req.Params.URI, true)
	})
	hooks.AddAfterUnsubscribe(func(_ context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		s.setLegacy(req.Params.URI, false)
	})
	hooks.AddBeforeSubscriptionsListen(func(ctx context.Context, id any, req *mcp.SubscriptionsListenRequest) {
		s.addListen(listen{id: id, session: server.ClientSessionFromContext(ctx)}, req.Params.Notifications.ResourceSubscriptions)
	})
	hooks.AddAfterSubscriptionsListen(func(_ context.Context, id any, _ *mcp.SubscriptionsListenRequest, _ *mcp.SubscriptionsListenResult) {
		s.dropListen(id)
	})
	// A listen that fails never reaches the after hook.
	hooks.AddOnError(func(_ context.Context, id any, method mcp.MCPMethod, _ any, _ error) {
		if method == mcp.MethodSubscriptionsListen {
			s.dropListen(id)
		}
	})
}

func (s *subscriptions) setLegacy(uri string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.legacy[uri] = true
	} else {
		delete(s.legacy, uri)
	}
}

func listenKey(id any) string { return fmt.Sprint(id) }

func (s *subscriptions) addListen(l listen, uris []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, uri := range uris {
		if s.listens[uri] == nil {
			s.listens[uri] = map[string]listen{}
		}
		s.listens[uri][listenKey(l.id)] = l
	}
}

func (s *subscriptions) dropListen(id any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for uri, ids := range s.listens {
		delete(ids, listenKey(id))
		if len(ids) == 0 {
			delete(s.listens, uri)
		}
	}
}

// updates returns each notifications/resources/updated to send for uri:
// one plain, for a legacy subscription, to the caller's session, and one
// per listen stream, tagged with its subscription id, to the stream's.
func (s *subscriptions) updates(uri string) []update {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []update
	if s.legacy[uri] {
		out = append(out, update{params: mcp.NotificationParams{AdditionalFields: map[string]any{"uri": uri}}})
	}
	for _, l := range s.listens[uri] {
		out = append(out, update{session: l.session, params: mcp.NotificationParams{
			Meta:             map[string]any{mcp.MetaKeySubscriptionID: l.id},
			AdditionalFields: map[string]any{"uri": uri},
		}})
	}
	return out
}

// notify queues a notification for session (nil: the calling session). It
// exists because SendNotificationToClient drops any _meta, which listen
// streams need; like mcp-go, it gives up rather than block when the
// session's queue is full.
func notify(ctx context.Context, session server.ClientSession, method string, params mcp.NotificationParams) error {
	if session == nil {
		session = server.ClientSessionFromContext(ctx)
	}
	if session == nil || !session.Initialized() {
		return server.ErrNotificationNotInitialized
	}
	note := mcp.JSONRPCNotification{
		JSONRPC:      mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: method, Params: params},
	}
	select {
	case session.NotificationChannel() <- note:
		return nil
	default:
		return server.ErrNotificationChannelBlocked
	}
}
