package actors

import (
	"context"
	"encoding/json"
	"slices"
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
	// Launcher says the process run-mcp started exited while what it
	// started still serves the connection ("" otherwise).
	Launcher string `json:"launcher,omitempty"`
	// Redirects are the HTTP redirects the connection followed.
	Redirects []wire.Redirect `json:"redirects,omitempty"`
	// Report is how a dead server ended, with its last stderr lines.
	Report *ProcessReport `json:"-"`
	// Ended heads the report: "The server died.", or what happened instead
	// (run-mcp closed the connection, the server closed its stdout).
	Ended string `json:"-"`
}

// Status reports on the connection without waiting for any call.
func (c *Conn) Status(ctx context.Context) (Status, error) {
	return ask(ctx, c, func(st *connState) Status {
		s := Status{Name: c.name, Phase: st.phase, Why: st.why, InFlight: len(st.calls), OpenRounds: len(st.rounds),
			LastUsed: st.lastUsed, LastFailure: st.lastFailure, Config: st.cfg, Connects: st.connects}
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
			s.Launcher, s.Redirects = sess.launcher, slices.Clone(sess.redirects)
			if st.phase == PhaseDead || st.phase == PhaseClosed {
				r := sess.report(st.stderr, 0)
				s.Report, s.Ended = &r, st.ended
			}
		}
		if sess := st.sess; sess != nil {
			sess.takeStderr(st.stderr)
		}
		s.StderrLines = st.stderr.Total()
		s.Notes = st.notes.size()
		return s
	})
}

// hasProcess says a process of this connection runs or ran: a connection
// over HTTP has no stderr at all.
func (st *connState) hasProcess() bool {
	if st.sess != nil {
		return st.sess.proc != nil
	}
	return st.lastProc != nil
}

// Stderr returns the target's stderr after since, or its last n lines (n >
// 0). ok is false for a target without a process (HTTP).
func (c *Conn) Stderr(ctx context.Context, since, last int) (ex wire.Excerpt, ok bool, err error) {
	type res struct {
		ex wire.Excerpt
		ok bool
	}
	r, err := ask(ctx, c, func(st *connState) res {
		if !st.hasProcess() {
			return res{}
		}
		if s := st.sess; s != nil {
			s.takeStderr(st.stderr)
		}
		if last > 0 {
			return res{st.stderr.Last(last), true}
		}
		return res{st.stderr.Since(since), true}
	})
	return r.ex, r.ok, err
}

// stderrSyncWait bounds SyncStderr: a target that floods stderr without
// pause never lets its pipe run empty.
const stderrSyncWait = 2 * time.Second

// SyncStderr waits until every line the current process wrote to stderr
// before the call has been read from its pipe, so that a Stderr query
// after it (which takes them into the ring) has them all: a server writes
// its stderr before it answers, but the drain may be behind a flood, and a
// pause in the lines says nothing under load. It is bounded by ctx and
// stderrSyncWait, and false when it cannot tell (a pipe that takes no
// deadline, on Windows): the caller then waits for the lines to settle.
func (c *Conn) SyncStderr(ctx context.Context) bool {
	feed, err := ask(ctx, c, func(st *connState) *wire.StderrFeed {
		if s := st.sess; s != nil && s.proc != nil && !s.stderrDone {
			return s.proc.Stderr()
		}
		return nil
	})
	if err != nil {
		return false
	}
	if feed == nil { // no process, or its stderr is all in already
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, stderrSyncWait)
	defer cancel()
	return feed.Sync(ctx)
}

// StderrStart is the position in the connection's stderr before the
// newest process's first line: Stderr(ctx, StderrStart, 0) is what the
// current process (or the last one to run) wrote, and nothing of the
// processes before it. Positions run on across reconnects, so a cursor
// taken before one still reads what came after it.
func (c *Conn) StderrStart(ctx context.Context) (int, error) {
	return ask(ctx, c, func(st *connState) int {
		if st.lastProc == nil {
			return 0
		}
		return st.lastProc.stderrBase
	})
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
	type res struct {
		notes []Note
		total int
	}
	r, _ := ask(context.Background(), c, func(st *connState) res {
		n, t := st.notes.query(count, method, clear)
		return res{n, t}
	})
	return r.notes, r.total
}

// live returns the live session or the NO_CONNECTION error that says why not.
// While the connection is connecting it waits for the outcome, within ctx.
func (c *Conn) live(ctx context.Context) (*session, error) {
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
		})
		if err == nil {
			err = notLive
		}
		if err != nil || wait == nil {
			return s, err
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, coded(CodeCancelled, "the request was cancelled while connection %q was still connecting; it never ran", c.name)
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
		return l, Info{}, err
	}
	info, err := ask(context.WithoutCancel(ctx), c, func(st *connState) Info {
		if st.sess == s {
			st.listing = l
			if l.Has.Tools {
				st.tools = newToolSet(l.Raw.Tools)
			}
		}
		return s.info(c.name)
	})
	return l, info, err
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
	method := listMethod(kind)
	if method == "" {
		return nil, coded(CodeInvalidArgument, "cannot list %q: use tools, resources, resource_templates or prompts", kind)
	}
	page, err := c.exchange(ctx, s, method, map[string]any{"cursor": cursor}, c.requestBudget(ctx, s.cfg), "")
	if err != nil {
		return nil, wrapMethod(method, err)
	}
	return page, nil
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
	_, err = c.exchange(ctx, s, method, map[string]any{"uri": uri}, c.requestBudget(ctx, s.cfg), uri)
	return err
}

// Roots returns the roots run-mcp answers this target with.
func (c *Conn) Roots(ctx context.Context) ([]mcp.Root, error) {
	return ask(ctx, c, func(st *connState) []mcp.Root { return st.cfg.Roots })
}

// List lists every item of one kind ("tools", "resources",
// "resource_templates", "prompts"), following cursors, and returns the
// entries as the server sent them. Tools are kept as the cache that checks
// calls.
func (c *Conn) List(ctx context.Context, kind string) ([]json.RawMessage, error) {
	s, err := c.live(ctx)
	if err != nil {
		return nil, err
	}
	raw, err := c.listAll(ctx, s, kind)
	if err != nil {
		return nil, err
	}
	if kind == "tools" {
		c.cacheTools(ctx, s, raw)
	}
	return raw, nil
}

func (c *Conn) cacheTools(ctx context.Context, s *session, raw []json.RawMessage) *toolSet {
	set := newToolSet(raw)
	_ = c.do(context.WithoutCancel(ctx), func(st *connState) {
		if st.sess == s {
			st.tools = set
			st.listing.Tools, st.listing.Raw.Tools, st.listing.Has.Tools = nil, raw, true
		}
	})
	return set
}

// Tools returns the tool list, from the cache when it has one (fresh: never),
// typed for run-mcp's checks (names, required arguments).
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
	if !fresh {
		cached, err := ask(ctx, c, func(st *connState) *toolSet {
			if st.phase == PhaseLive {
				return st.tools
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if cached != nil {
			return cached, nil
		}
	}
	s, err := c.live(ctx)
	if err != nil {
		return nil, err
	}
	raw, err := c.listAll(ctx, s, "tools")
	if err != nil {
		return nil, err
	}
	return c.cacheTools(ctx, s, raw), nil
}

// Request sends one request as it is and returns the result's raw bytes,
// for checks that must see what the server sent (validate). On a 2026-07-28
// connection the per-request _meta the revision requires is added.
func (c *Conn) Request(ctx context.Context, method string, params map[string]any) (json.RawMessage, error) {
	s, err := c.live(ctx)
	if err != nil {
		return nil, err
	}
	return c.exchange(ctx, s, method, params, c.requestBudget(ctx, s.cfg), "")
}

// Ping asks the server whether it is there, under the housekeeping budget.
func (c *Conn) Ping(ctx context.Context) error {
	s, err := c.live(ctx)
	if err != nil {
		return err
	}
	_, err = c.exchange(ctx, s, string(mcp.MethodPing), map[string]any{}, c.requestBudget(ctx, s.cfg), "")
	return err
}
