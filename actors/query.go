package actors

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/snapshot"
	"github.com/run-mcp/run-mcp/wire"
)

// Status is everything known about a connection at one moment.
type Status struct {
	Name       string        `json:"name"`
	Phase      Phase         `json:"phase"`
	Why        string        `json:"why,omitempty"`
	Info       *Info         `json:"info,omitempty"`
	Uptime     time.Duration `json:"-"`
	Exit       string        `json:"exit,omitempty"`
	InFlight   int           `json:"calls_in_flight"`
	OpenRounds int           `json:"open_input_rounds"`
	// OpenTasks are the tasks of this life not yet completed, failed or
	// cancelled, as last seen.
	OpenTasks   []TaskInfo            `json:"open_tasks,omitempty"`
	StderrLines int                   `json:"stderr_lines"`
	Evidence    wire.EvidenceSnapshot `json:"-"`
	Notes       int                   `json:"notifications"`
	LastUsed    time.Time             `json:"last_used"`
	LastFailure *ConnectError         `json:"-"`
	Config      Config                `json:"-"`
	Connects    int                   `json:"connects"`
	// Report is how a dead server ended, with its last stderr lines.
	Report *ProcessReport `json:"-"`
	// Ended heads the report: "The server died.", or what happened instead
	// (run-mcp closed the connection, the server closed its stdout).
	Ended string `json:"-"`
}

// Status reports on the connection without waiting for any call.
func (c *Conn) Status(ctx context.Context) (Status, error) {
	return ask(ctx, c, func(st *connState) Status {
		if sess := st.sess; sess != nil && sess.proc != nil {
			if _, ok := sess.proc.Exit(); ok {
				// Reaped since noticeDeath looked: never "live" beside an exit.
				c.markDead(st, sess)
			}
		}
		s := Status{Name: c.name, Phase: st.phase, Why: st.why, InFlight: len(st.calls) + c.fast.inFlight(), OpenRounds: st.openRounds,
			LastUsed: c.fast.lastUsed(st.lastUsed), LastFailure: st.lastFailure, Config: st.cfg, Connects: st.connects}
		if sess := st.sess; sess != nil {
			info := sess.info(c.name)
			s.Info = &info
			if st.phase == PhaseLive {
				s.Uptime = time.Since(sess.started)
				s.OpenTasks = sess.tasks.open()
			}
			if sess.proc != nil {
				if e, ok := sess.proc.Exit(); ok {
					s.Exit = e.Sentence()
				}
			}
			s.Evidence = sess.evidence.Snapshot()
			if st.phase == PhaseDead || st.phase == PhaseClosed {
				r := sess.report(0)
				s.Report, s.Ended = &r, st.ended
			}
		}
		if r := st.ring(); r != nil {
			s.StderrLines = r.Total()
		}
		_, s.Notes = c.notes.query(0, "", false)
		return s
	})
}

// ring is the stderr of the newest life: a failed connect's, else the
// session's (live or ended).
func (st *connState) ring() *wire.Ring {
	if st.lastFailure != nil && st.lastFailure.ring != nil {
		return st.lastFailure.ring
	}
	if st.sess != nil && st.sess.proc != nil {
		return st.sess.proc.Stderr()
	}
	return nil
}

// Stderr returns the target's stderr after since, or its last n lines (n >
// 0). ok is false for a target without a process (HTTP).
func (c *Conn) Stderr(ctx context.Context, since, last int) (ex wire.Excerpt, ok bool, err error) {
	ring, err := ask(ctx, c, func(st *connState) *wire.Ring { return st.ring() })
	if err != nil || ring == nil {
		return wire.Excerpt{}, false, err
	}
	if last > 0 {
		return ring.Last(last), true, nil
	}
	return ring.Since(since), true, nil
}

// Evidence is the stdout noise and transport errors of the newest life.
func (c *Conn) Evidence(ctx context.Context) (wire.EvidenceSnapshot, error) {
	return ask(ctx, c, func(st *connState) wire.EvidenceSnapshot {
		if st.sess == nil {
			return wire.EvidenceSnapshot{}
		}
		return st.sess.evidence.Snapshot()
	})
}

// Notifications returns what the target emitted, newest count, filtered by
// a method substring; clear empties the log afterwards.
func (c *Conn) Notifications(count int, method string, clear bool) ([]Note, int) {
	return c.notes.query(count, method, clear)
}

// live returns the live session or the NO_CONNECTION error that says why not.
func (c *Conn) live(ctx context.Context) (*session, error) {
	return c.withLive(ctx, 0, nil)
}

// withLive finds the live session and, on the actor, runs then with it (to
// register a call in the same step, told how long it waited); not live is NO_CONNECTION saying why.
// While the connection is connecting or reconnecting it waits for the
// outcome, within ctx and within budget (0: ctx alone): a request sent together with its connect is answered, and one
// the client cancels while it waits never runs.
func (c *Conn) withLive(ctx context.Context, budget time.Duration, then func(st *connState, waited time.Duration)) (*session, error) {
	var waitStart time.Time // zero until the request first waits
	var expired <-chan time.Time
	if budget > 0 {
		t := time.NewTimer(budget)
		defer t.Stop()
		expired = t.C
	}
	for {
		var s *session
		var notLive error
		var wait chan struct{}
		err := c.do(ctx, func(st *connState) {
			if st.phase == PhaseConnecting {
				wait = make(chan struct{})
				st.waiters = append(st.waiters, wait)
				return
			}
			if st.phase != PhaseLive || st.sess == nil {
				notLive = c.notLiveError(st)
				return
			}
			s = st.sess
			st.lastUsed = time.Now()
			if then != nil {
				var waited time.Duration
				if !waitStart.IsZero() {
					waited = time.Since(waitStart)
				}
				then(st, waited)
			}
		})
		if err == nil {
			err = notLive
		}
		if err != nil || wait == nil {
			return s, err
		}
		if waitStart.IsZero() {
			waitStart = time.Now()
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, coded(CodeCancelled, "the request was cancelled while connection %q was still connecting; it never ran", c.name)
		case <-expired:
			return nil, &CallError{Reason: fmt.Sprintf("The call timed out after %s waiting for connection %q to finish connecting; it was never sent. "+
				"mcp_server_status shows how the connect is going; raise timeout_ms (--timeout from a shell) if the server is slow to start", fmtDur(budget), c.name)}
		case <-c.stopped:
			return nil, coded(CodeNoConnection, "connection %q was closed while the request waited for it to connect", c.name)
		}
	}
}

// Listing lists what the server offers now, and keeps it as the cache used
// to check tool names and arguments.
func (c *Conn) Listing(ctx context.Context) (snapshot.Listing, Info, error) {
	s, err := c.live(ctx)
	if err != nil {
		return snapshot.Listing{}, Info{}, err
	}
	l, err := c.listing(ctx, s)
	if err != nil {
		return l, Info{}, c.callFailed(ctx, s, err, 0)
	}
	_ = c.do(context.WithoutCancel(ctx), func(st *connState) {
		if st.sess == s {
			st.listing = l
			c.tools.Store(&toolSet{typed: l.Tools, raw: l.Raw.Tools})
		}
	})
	return l, s.info(c.name), nil
}

// CachedListing is the last listing, without asking the server.
func (c *Conn) CachedListing(ctx context.Context) (snapshot.Listing, error) {
	return ask(ctx, c, func(st *connState) snapshot.Listing { return st.listing })
}

// Page lists one page of one kind, for callers that pass a cursor, and
// returns the page as the server sent it (its nextCursor included).
func (c *Conn) Page(ctx context.Context, kind, cursor string) (json.RawMessage, error) {
	s, err := c.live(ctx)
	if err != nil {
		return nil, err
	}
	cctx, page := withCapture(ctx)
	err = c.request(cctx, s, listMethod(kind), func(ctx context.Context) (err error) {
		req := mcp.PaginatedRequest{Params: mcp.PaginatedParams{Cursor: mcp.Cursor(cursor)}}
		switch kind {
		case "tools":
			_, err = s.client.ListToolsByPage(ctx, mcp.ListToolsRequest{PaginatedRequest: req})
		case "resources":
			_, err = s.client.ListResourcesByPage(ctx, mcp.ListResourcesRequest{PaginatedRequest: req})
		case "resource_templates":
			_, err = s.client.ListResourceTemplatesByPage(ctx, mcp.ListResourceTemplatesRequest{PaginatedRequest: req})
		default:
			_, err = s.client.ListPromptsByPage(ctx, mcp.ListPromptsRequest{PaginatedRequest: req})
		}
		return err
	})
	if err != nil {
		return nil, c.callFailed(ctx, s, err, 0)
	}
	return page.last(), nil
}

// Subscribe asks the server for resources/updated notifications on uri (or
// stops them).
func (c *Conn) Subscribe(ctx context.Context, uri string, unsubscribe bool) error {
	s, err := c.live(ctx)
	if err != nil {
		return err
	}
	method := string(mcp.MethodResourcesSubscribe)
	if unsubscribe {
		method = string(mcp.MethodResourcesUnsubscribe)
	}
	err = c.request(ctx, s, method, func(ctx context.Context) error {
		_, err := s.raw(ctx, method, map[string]any{"uri": uri})
		return err
	})
	if err != nil {
		return c.callFailed(ctx, s, err, 0)
	}
	return nil
}

// Roots returns the roots run-mcp answers this target with.
func (c *Conn) Roots(ctx context.Context) ([]mcp.Root, error) {
	return ask(ctx, c, func(st *connState) []mcp.Root { return st.cfg.Roots })
}

// List lists every item of one kind ("tools", "resources",
// "resource_templates", "prompts"), following cursors, and returns the
// entries as the server sent them. Tools are kept as the cache that checks
// names and arguments.
func (c *Conn) List(ctx context.Context, kind string) ([]json.RawMessage, error) {
	if kind == "tools" {
		set, err := c.listToolSet(ctx)
		if err != nil {
			return nil, err
		}
		return set.raw, nil
	}
	s, err := c.live(ctx)
	if err != nil {
		return nil, err
	}
	var raw []json.RawMessage
	switch kind {
	case "resources":
		_, raw, err = listRaw(ctx, c, s, "resources", listMethod("resources"), func(ctx context.Context) (*mcp.ListResourcesResult, error) {
			return s.client.ListResources(ctx, mcp.ListResourcesRequest{})
		})
	case "resource_templates":
		_, raw, err = listRaw(ctx, c, s, "resourceTemplates", listMethod("resource_templates"), func(ctx context.Context) (*mcp.ListResourceTemplatesResult, error) {
			return s.client.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
		})
	case "prompts":
		_, raw, err = listRaw(ctx, c, s, "prompts", listMethod("prompts"), func(ctx context.Context) (*mcp.ListPromptsResult, error) {
			return s.client.ListPrompts(ctx, mcp.ListPromptsRequest{})
		})
	default:
		return nil, coded(CodeInvalidArgument, "cannot list %q: use tools, resources, resource_templates or prompts", kind)
	}
	if err != nil {
		return nil, c.callFailed(ctx, s, err, 0)
	}
	return raw, nil
}

func (c *Conn) cacheTools(ctx context.Context, s *session, set *toolSet) {
	_ = c.do(context.WithoutCancel(ctx), func(st *connState) {
		if st.sess == s {
			st.listing.Tools, st.listing.Raw.Tools, st.listing.Has.Tools = set.typed, set.raw, true
			c.tools.Store(set)
		}
	})
}

// Tools returns the tool list, from the cache when it has one, typed for
// run-mcp's checks (names, required arguments).
func (c *Conn) Tools(ctx context.Context, fresh bool) ([]mcp.Tool, error) {
	set, err := c.toolSet(ctx, fresh)
	if err != nil {
		return nil, err
	}
	return set.tools(), nil
}

// RawTool returns the definition of one tool as the server sent it, from
// the cache when it has one; nil if the server does not list it.
func (c *Conn) RawTool(ctx context.Context, name string) (json.RawMessage, error) {
	set, err := c.toolSet(ctx, false)
	if err != nil {
		return nil, err
	}
	return set.rawOf(name), nil
}

func (c *Conn) toolSet(ctx context.Context, fresh bool) (*toolSet, error) {
	if cached := c.tools.Load(); !fresh && cached != nil {
		return cached, nil
	}
	return c.listToolSet(ctx)
}

// listToolSet asks the server for its tools and keeps them as the cache.
func (c *Conn) listToolSet(ctx context.Context) (*toolSet, error) {
	s, err := c.live(ctx)
	if err != nil {
		return nil, err
	}
	var set *toolSet
	if s.listsRaw() {
		raw, err := c.listToolsRaw(ctx, s)
		if err != nil {
			return nil, c.callFailed(ctx, s, err, 0)
		}
		set = &toolSet{raw: raw, lazy: true}
	} else {
		tools, raw, err := c.listTools(ctx, s)
		if err != nil {
			return nil, c.callFailed(ctx, s, err, 0)
		}
		set = &toolSet{typed: tools, raw: raw}
	}
	c.cacheTools(ctx, s, set)
	return set, nil
}

// StderrRing is the ring of the newest life, for relays that follow it.
func (c *Conn) StderrRing(ctx context.Context) (*wire.Ring, error) {
	return ask(ctx, c, func(st *connState) *wire.Ring { return st.ring() })
}

// Request sends one request as it is and returns the result's raw bytes,
// for checks that must see what the server sent before any library
// normalised it (validate). On a 2026-07-28 connection the per-request
// _meta the revision requires is added.
func (c *Conn) Request(ctx context.Context, method string, params map[string]any) (json.RawMessage, error) {
	s, err := c.live(ctx)
	if err != nil {
		return nil, err
	}
	if params == nil {
		params = map[string]any{}
	}
	if s.init != nil && mcp.IsModernProtocol(s.init.ProtocolVersion) {
		params["_meta"] = map[string]any{
			mcp.MetaKeyProtocolVersion:    s.init.ProtocolVersion,
			mcp.MetaKeyClientCapabilities: advertised(),
			mcp.MetaKeyClientInfo:         c.env.clientInfo,
		}
	}
	var raw json.RawMessage
	err = c.request(ctx, s, method, func(ctx context.Context) (err error) {
		raw, err = s.raw(ctx, method, params)
		return err
	})
	if err != nil {
		return nil, c.callFailed(ctx, s, err, 0)
	}
	return raw, nil
}

// Ping asks the server whether it is there, under the housekeeping budget.
func (c *Conn) Ping(ctx context.Context) error {
	s, err := c.live(ctx)
	if err != nil {
		return err
	}
	err = c.request(ctx, s, string(mcp.MethodPing), func(ctx context.Context) error {
		_, err := s.raw(ctx, string(mcp.MethodPing), map[string]any{})
		return err
	})
	if err != nil {
		return c.callFailed(ctx, s, err, 0)
	}
	return nil
}

// listMethod names the request that lists one kind.
func listMethod(kind string) string {
	switch kind {
	case "tools":
		return string(mcp.MethodToolsList)
	case "resources":
		return string(mcp.MethodResourcesList)
	case "resource_templates":
		return string(mcp.MethodResourcesTemplatesList)
	}
	return string(mcp.MethodPromptsList)
}
