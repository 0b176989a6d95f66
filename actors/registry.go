package actors

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/wire"
)

// Connection limits.
const (
	DefaultMaxConnections = 16
	MaxMaxConnections     = 1000
	// DefaultName is the name of a connection opened without one.
	DefaultName = "default"
)

// Options configure a Registry.
type Options struct {
	MaxConnections int
	// IdleTimeout closes a live connection after this long without a call
	// (0: never). Its record stays, so reconnect_to_mcp brings it back.
	IdleTimeout time.Duration
	Host        Host
	ClientInfo  mcp.Implementation
	Logger      *slog.Logger
	// RequestTimeout is the housekeeping budget of connections whose Config
	// sets none (0: DefaultRequestTimeout).
	RequestTimeout time.Duration
	// Words name the front end's knobs in timeout messages.
	Words Words
	// SignalAtOnce sends a target SIGTERM as its stdin closes instead of
	// after wire.StdinGrace: for a one-shot command, which has its answer
	// and only waits for the target to be gone.
	SignalAtOnce bool
}

// Registry supervises the named connections: names, the limit on open ones,
// the most recently used one, and the records of those that ended.
type Registry struct {
	env       *engine
	max       int
	mu        sync.Mutex // guards the maps below; held only for map work, never across I/O
	conns     map[string]*Conn
	last      string
	closing   bool
	idle      time.Duration
	stopIdle  chan struct{}
	closeOnce sync.Once
	idleDone  chan struct{}
	// expected counts the connects announced by name (Expect) that have not
	// finished; expectDone is closed and replaced whenever one finishes.
	expected   map[string]int
	expectDone chan struct{}
}

// NewRegistry starts a registry; Close it to stop every target.
func NewRegistry(opts Options) *Registry {
	if opts.MaxConnections <= 0 {
		opts.MaxConnections = DefaultMaxConnections
	}
	opts.MaxConnections = min(opts.MaxConnections, MaxMaxConnections)
	if opts.Host == nil {
		opts.Host = Headless{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.ClientInfo.Name == "" {
		opts.ClientInfo = mcp.Implementation{Name: "run-mcp", Version: "dev"}
	}
	r := &Registry{env: &engine{spawner: wire.NewSpawner(), host: opts.Host, clientInfo: opts.ClientInfo, log: opts.Logger,
		requestTimeout: opts.RequestTimeout, words: opts.Words, signalAtOnce: opts.SignalAtOnce, stderrNews: make(chan struct{}, 1)},
		max: opts.MaxConnections, conns: map[string]*Conn{}, idle: opts.IdleTimeout,
		expected: map[string]int{}, expectDone: make(chan struct{})}
	if r.idle > 0 {
		r.stopIdle, r.idleDone = make(chan struct{}), make(chan struct{})
		go r.closeIdle()
	}
	return r
}

// closeIdle disconnects live connections nobody has called for r.idle, so a
// forgotten server (and whatever it holds) does not live until run-mcp exits.
//
// Idle time counts from the end of the last call: LastUsed is when a call
// started, so a call longer than r.idle would otherwise have its connection
// closed a tick after it ended. busy keeps, per connection, the last tick
// that saw a call in flight, which is the end of the last call to within a
// tick.
func (r *Registry) closeIdle() {
	defer close(r.idleDone)
	tick := time.NewTicker(max(r.idle/10, 10*time.Millisecond))
	defer tick.Stop()
	busy := map[*Conn]time.Time{}
	for {
		select {
		case <-r.stopIdle:
			return
		case now := <-tick.C:
			r.closeIdleOnce(busy, now)
		}
	}
}

func (r *Registry) closeIdleOnce(busy map[*Conn]time.Time, now time.Time) {
	conns := r.Conns()
	seen := make(map[*Conn]bool, len(conns))
	for _, c := range conns {
		seen[c] = true
		if c.Phase() != PhaseLive {
			continue
		}
		st, err := c.Status(context.Background())
		if err != nil {
			continue
		}
		if st.InFlight > 0 {
			busy[c] = now
			continue
		}
		last := st.LastUsed
		if b := busy[c]; b.After(last) {
			last = b
		}
		if now.Sub(last) < r.idle {
			continue
		}
		why := fmt.Sprintf("it was closed after %s without a call (--idle-timeout); reconnect_to_mcp starts it again", fmtDur(r.idle))
		if _, err := c.disconnect(context.Background(), why); err == nil {
			r.env.log.Warn("closed an idle connection", "connection", c.name, "idle", r.idle)
		}
	}
	for c := range busy {
		if !seen[c] {
			delete(busy, c)
		}
	}
}

// Connect opens the connection called name, or starts it afresh when only
// its record is left; a live connection of that name is ALREADY_CONNECTED.
func (r *Registry) Connect(ctx context.Context, name string, cfg Config) (Info, error) {
	rc, err := r.ConnectReport(ctx, name, cfg)
	return rc.Info, err
}

// ConnectReport is Connect that also reports what the record of an earlier
// life listed (HadPrior), for the "Changes since last connection" lines.
func (r *Registry) ConnectReport(ctx context.Context, name string, cfg Config) (Reconnected, error) {
	if name == "" {
		name = DefaultName
	}
	c, err := r.reserve(name)
	if err != nil {
		return Reconnected{}, err
	}
	return c.connect(ctx, cfg)
}

func (r *Registry) reserve(name string) (*Conn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return nil, coded(CodeConnectionLimit, "run-mcp is shutting down and opens no new connections")
	}
	c, exists := r.conns[name]
	if open := r.openNames(name); len(open) >= r.max {
		return nil, coded(CodeConnectionLimit, "%d connections are open, the limit (--max-connections %d): %s. Disconnect one with disconnect_from_mcp, or start run-mcp with a higher --max-connections (up to %d).",
			len(open), r.max, strings.Join(open, ", "), MaxMaxConnections)
	}
	if !exists {
		c = newConn(name, r.env)
		r.conns[name] = c
	}
	r.last = name
	return c, nil
}

// openNames lists the live or connecting connections other than except.
func (r *Registry) openNames(except string) []string {
	var names []string
	for n, c := range r.conns {
		if n != except && isOpen(c.Phase()) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func isOpen(p Phase) bool { return p == PhaseLive || p == PhaseConnecting }

// Resolve finds the connection a request names. Without a name, the one
// open connection is meant; with several, the caller must choose
// (CONNECTION_REQUIRED), never a guess. With needLive false, a lone record of
// an ended connection also answers (its stderr and reconnect still work).
func (r *Registry) Resolve(name string, needLive bool) (*Conn, error) {
	return r.resolve(name, needLive, false)
}

// resolve is Resolve for a caller that restarts what it finds (restart):
// when no connection is live and a name is needed, it is told to name the
// one to restart, not to call the reconnect it is making.
func (r *Registry) resolve(name string, needLive, restart bool) (*Conn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if name != "" {
		c, ok := r.conns[name]
		if !ok {
			return nil, coded(CodeNoConnection, "no connection is named %q; %s. Open it with connect_to_mcp name=%q.", name, r.describeAll(), name)
		}
		r.last = name
		return c, nil
	}
	open := r.openNames("")
	switch {
	case len(open) == 1:
		r.last = open[0]
		return r.conns[open[0]], nil
	case len(open) > 1:
		return nil, coded(CodeConnectionRequired, "%d connections are open: %s. Pass connection to choose one%s.",
			len(open), r.describe(open), r.recent(open))
	case !needLive && len(r.conns) == 1:
		for n, c := range r.conns {
			r.last = n
			return c, nil
		}
	case len(r.conns) == 0:
		return nil, coded(CodeNoConnection, "no connection is open. Call connect_to_mcp first (or pass auto_connect to call_mcp_primitive).")
	}
	all := r.describeAll() + r.recent(r.names())
	if restart && len(r.conns) > 1 {
		return nil, coded(CodeConnectionRequired, "no connection is live and several have a record; %s. Pass connection to name the one to restart.", all)
	}
	if len(r.conns) == 1 {
		// The one record says why it ended (the server died, --idle-timeout),
		// as a call naming it would be told.
		for _, c := range r.conns {
			if why := c.Why(); why != "" {
				all += ": " + strings.TrimSuffix(why, ".")
			}
		}
	}
	return nil, coded(CodeNoConnection, "no connection is live; %s. Pass connection to read one, reconnect_to_mcp to restart one, or connect_to_mcp.", all)
}

// anyName is the expectation of a reconnect that names no connection: it
// may restart whichever is open, so every request waits for it.
const anyName = "\x00any"

// Expect announces a connect under name that is on its way (its request has
// been read, its handler has not run yet); done must be called once it has
// finished. Until then ResolveWait waits for it, so a call a client sends
// together with its connect finds the connection instead of racing it.
func (r *Registry) Expect(name string) (done func()) {
	if name == "" {
		name = DefaultName
	}
	return r.expect(name)
}

// ExpectReconnect is Expect for a reconnect of name ("": of whichever
// connection it resolves to): a call sent with it runs on the new process
// instead of being interrupted by it.
func (r *Registry) ExpectReconnect(name string) (done func()) {
	if name == "" {
		name = anyName
	}
	return r.expect(name)
}

func (r *Registry) expect(name string) (done func()) {
	r.mu.Lock()
	r.expected[name]++
	r.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			if r.expected[name]--; r.expected[name] <= 0 {
				delete(r.expected, name)
			}
			close(r.expectDone)
			r.expectDone = make(chan struct{})
			r.mu.Unlock()
		})
	}
}

// ResolveNow is Resolve for a call that must not wait: ok is false when a
// connect of that name (or a reconnect of any) is announced and not yet
// finished, or when Resolve fails; the caller then takes the path that waits
// and reports.
func (r *Registry) ResolveNow(name string) (c *Conn, ok bool) {
	r.mu.Lock()
	pending := len(r.expected) > 0
	if name != "" {
		pending = r.expected[name] > 0 || r.expected[anyName] > 0
	}
	r.mu.Unlock()
	if pending {
		return nil, false
	}
	c, err := r.Resolve(name, true)
	return c, err == nil
}

// ResolveWait is Resolve after any announced connect of that name (of any
// name, when none is given) has finished, within ctx.
func (r *Registry) ResolveWait(ctx context.Context, name string, needLive bool) (*Conn, error) {
	for {
		r.mu.Lock()
		pending := len(r.expected) > 0
		if name != "" {
			pending = r.expected[name] > 0 || r.expected[anyName] > 0
		}
		changed := r.expectDone
		r.mu.Unlock()
		if !pending {
			return r.Resolve(name, needLive)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, coded(CodeCancelled, "the request was cancelled while it waited for a connect in progress; it never ran")
		}
	}
}

// recent names the most recently used connection when there is a choice
// to make, with its state when it is not one of listed: a record is still
// what the user last worked on. The caller holds r.mu.
func (r *Registry) recent(listed []string) string {
	c, ok := r.conns[r.last]
	if !ok || len(r.conns) < 2 {
		return ""
	}
	if slices.Contains(listed, r.last) {
		return fmt.Sprintf("; the most recently used is %q", r.last)
	}
	return fmt.Sprintf("; the most recently used is %q (%s)", r.last, c.Phase())
}

func (r *Registry) describe(names []string) string {
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s (%s)", n, r.conns[n].Phase()))
	}
	return strings.Join(parts, ", ")
}

func (r *Registry) describeAll() string {
	if len(r.conns) == 0 {
		return "there are no connections"
	}
	return "connections: " + r.describe(r.names())
}

// names lists every connection's name, sorted. The caller holds r.mu.
func (r *Registry) names() []string {
	names := make([]string, 0, len(r.conns))
	for n := range r.conns {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LastUsed names the most recently used connection that still has a
// record ("" when there is none), so it is always one Conns lists.
func (r *Registry) LastUsed() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.conns[r.last]; !ok {
		return ""
	}
	return r.last
}

// StderrNews receives a signal whenever some connection's stderr has grown
// since the last: a reader follows every connection's stderr by waiting on
// it and then reading each connection's (Conn.Stderr), rather than polling.
// Signals coalesce: one may stand for lines of several connections, and a
// reader that looks late finds them all.
func (r *Registry) StderrNews() <-chan struct{} { return r.env.stderrNews }

// Conns lists every connection, live or record, by name.
func (r *Registry) Conns() []*Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Conn, 0, len(r.conns))
	for _, c := range r.conns {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// Reconnect restarts the named connection, with override applied to its
// settings; it works on a live connection and on a record.
func (r *Registry) Reconnect(ctx context.Context, name string, override func(*Config)) (Reconnected, error) {
	c, err := r.resolve(name, false, true)
	if err != nil {
		return Reconnected{}, err
	}
	return c.reconnect(ctx, override)
}

// DisconnectAfter stops the named connection after a call that asked for it
// (disconnect_after); status and notes say that is why it is closed.
func (r *Registry) DisconnectAfter(ctx context.Context, name string) (Disconnected, error) {
	c, err := r.Resolve(name, false)
	if err != nil {
		return Disconnected{}, err
	}
	return c.disconnect(ctx, "it was closed by disconnect_after after the call; reconnect_to_mcp starts it again")
}

// Disconnect stops the named connection; forget also drops its record.
func (r *Registry) Disconnect(ctx context.Context, name string, forget bool) (Disconnected, error) {
	c, err := r.Resolve(name, false)
	if err != nil {
		return Disconnected{}, err
	}
	d, err := c.disconnect(ctx, "it was disconnected with disconnect_from_mcp")
	if forget {
		r.mu.Lock()
		if r.conns[c.name] == c {
			delete(r.conns, c.name)
		}
		r.mu.Unlock()
		c.close()
		if err != nil && isCode(err, CodeNoConnection) {
			err = nil // forgetting a record that was not running is what was asked
		}
	}
	return d, err
}

func isCode(err error, code string) bool {
	ce, ok := err.(*CodedError)
	return ok && ce.Code == code
}

// Close stops every target, in parallel, then the spawner. It refuses new
// connections from its first moment.
func (r *Registry) Close() {
	r.closeOnce.Do(r.close)
}

func (r *Registry) close() {
	if r.stopIdle != nil {
		close(r.stopIdle)
		<-r.idleDone
	}
	r.mu.Lock()
	r.closing = true
	conns := make([]*Conn, 0, len(r.conns))
	for _, c := range r.conns {
		conns = append(conns, c)
	}
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.close()
		}()
	}
	wg.Wait()
	r.env.spawner.Close()
}

// Uptime formats how long a connection has been up, for replies.
func Uptime(d time.Duration) string { return fmtDur(d) }
