package actors

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/snapshot"
	"github.com/run-mcp/run-mcp/internal/toolcheck"
	"github.com/run-mcp/run-mcp/wire"
)

// toolSet is one tools/list as the server sent it, indexed for checking
// calls. It never changes once made (the actor replaces it whole), so
// operations may read it; what it derives lazily is guarded by sync.Once.
type toolSet struct {
	raw []json.RawMessage

	// byName is the first entry of each name, indexed on first use: a
	// listing that no call follows (a one-shot list-tools) never decodes
	// its tools a second time.
	byNameOnce sync.Once
	byName     map[string]json.RawMessage

	typedOnce sync.Once
	typed     []mcp.Tool
	reqOnce   sync.Once
	required  map[string][]string
}

func newToolSet(raw []json.RawMessage) *toolSet { return &toolSet{raw: raw} }

// names is byName, indexed on first use.
func (t *toolSet) names() map[string]json.RawMessage {
	t.byNameOnce.Do(func() {
		t.byName = make(map[string]json.RawMessage, len(t.raw))
		for _, r := range t.raw {
			if n := snapshot.Read(r).Name; t.byName[n] == nil {
				t.byName[n] = r
			}
		}
	})
	return t.byName
}

func (t *toolSet) has(name string) bool { return t.names()[name] != nil }

// rawOf returns tool name's definition as the server sent it (nil: none).
func (t *toolSet) rawOf(name string) json.RawMessage { return t.names()[name] }

// tools is the typed list, decoded on first use. An entry mcp-go's type
// cannot hold (a server's mistake, which the listing still shows as sent)
// keeps its name, so that a call to it still reaches the server.
func (t *toolSet) tools() []mcp.Tool {
	t.typedOnce.Do(func() { t.typed = decodeTools(t.raw) })
	return t.typed
}

func decodeTools(raw []json.RawMessage) []mcp.Tool {
	tools := make([]mcp.Tool, 0, len(raw))
	for _, r := range raw {
		var tl mcp.Tool
		if json.Unmarshal(r, &tl) != nil {
			tl = mcp.Tool{Name: snapshot.Read(r).Name}
		}
		tools = append(tools, tl)
	}
	return tools
}

// check says whether a call of name with args may go: UNKNOWN_TOOL with the
// nearest name, or INVALID_ARGUMENT naming what is missing.
func (t *toolSet) check(name string, args json.RawMessage) error {
	if !t.has(name) {
		_, err := toolcheck.Find(t.tools(), name)
		return &CodedError{Code: CodeUnknownTool, Msg: err.Error()}
	}
	t.reqOnce.Do(func() {
		t.required = map[string][]string{}
		for n, r := range t.names() {
			var d struct {
				InputSchema struct {
					Required []string `json:"required"`
				} `json:"inputSchema"`
			}
			_ = json.Unmarshal(r, &d)
			t.required[n] = d.InputSchema.Required
		}
	})
	required := t.required[name]
	if len(required) == 0 {
		return nil
	}
	if err := toolcheck.CheckRaw(name, required, args); err != nil {
		return &CodedError{Code: CodeInvalidArgument, Msg: err.Error()}
	}
	return nil
}

// headerChecked drops, on a 2026-07-28 connection over HTTP, the tools whose
// x-mcp-header annotations are invalid: that revision's client must not
// call them (it could not mirror their arguments into headers). Each is
// named with why in excluded.
func headerChecked(s *session, raw []json.RawMessage) (kept []json.RawMessage, excluded []string) {
	if s.http == nil || !s.modern {
		return raw, nil
	}
	kept = raw[:0:0]
	for _, r := range raw {
		var tl mcp.Tool
		if json.Unmarshal(r, &tl) == nil {
			if err := mcp.ValidateParamHeaderAnnotations(&tl); err != nil {
				excluded = append(excluded, fmt.Sprintf("%q (%v)", tl.Name, err))
				continue
			}
		}
		kept = append(kept, r)
	}
	return kept, excluded
}

// noteExcluded files the tools headerChecked dropped as evidence.
func noteExcluded(s *session, excluded []string) {
	for _, e := range excluded {
		s.evidence.AddError(wire.TransportError{Time: time.Now(),
			Message: "the tool " + e + " has an invalid x-mcp-header annotation: a 2026-07-28 client over HTTP must not call it, so run-mcp lists and calls it not"})
	}
}

// paramHeaders are the Mcp-Param-* headers of a tools/call on a 2026-07-28
// connection over HTTP: the arguments the tool's x-mcp-header annotations
// name, mirrored into headers.
func (t *toolSet) paramHeaders(name string, params json.RawMessage) map[string]string {
	raw := t.rawOf(name)
	if raw == nil {
		return nil
	}
	var tl mcp.Tool
	if json.Unmarshal(raw, &tl) != nil {
		return nil
	}
	return mcp.GenerateParamHeaders(&tl, params)
}

// refresh is a tools/list the actor asks for on behalf of checked calls
// that wait on it (a tool list changed, or a name not in the last one).
type refresh struct {
	sess  *session
	calls []*callState
	raw   []json.RawMessage
	seen  map[string]bool
	timer *time.Timer
}

// awaitTools has call wait for a fresh tool list, asking for one if none is
// under way.
func (c *Conn) awaitTools(st *connState, call *callState) {
	if r := st.refresh; r != nil && r.sess == st.sess {
		r.calls = append(r.calls, call)
		return
	}
	r := &refresh{sess: st.sess, calls: []*callState{call}, raw: []json.RawMessage{}, seen: map[string]bool{}}
	st.refresh = r
	budget := c.requestBudget(contextBackground, st.cfg)
	r.timer = time.AfterFunc(budget, func() { c.post(refreshTimer{r: r, budget: budget}) })
	c.requestPage(st, r, "")
}

func (c *Conn) requestPage(st *connState, r *refresh, cursor string) {
	params := map[string]any{}
	if cursor != "" {
		params["cursor"] = cursor
	}
	if r.sess.modern {
		params = r.sess.withMeta(c.env.clientInfo, params)
	}
	if _, err := c.send(st, r.sess, &pending{method: string(mcp.MethodToolsList), refresh: r}, params, ""); err != nil {
		c.refreshFailed(st, r, err)
	}
}

// refreshPage takes one page of the tool list.
func (c *Conn) refreshPage(st *connState, r *refresh, m *wire.Message) {
	if st.refresh != r {
		return
	}
	if m.Error != nil {
		c.refreshFailed(st, r, targetError(m.Error))
		return
	}
	items, err := snapshot.Items(m.Result, "tools")
	if err != nil {
		c.refreshFailed(st, r, fmt.Errorf("read the tools the server sent: %w", err))
		return
	}
	r.raw = append(r.raw, items...)
	next, err := nextCursor(m.Result)
	if err != nil {
		c.refreshFailed(st, r, err)
		return
	}
	if next != "" {
		if r.seen[next] {
			c.refreshFailed(st, r, fmt.Errorf("the server's tools listing repeats the cursor %q: it would never end. A server must give each page a new cursor", clipCursor(next)))
			return
		}
		r.seen[next] = true
		c.requestPage(st, r, next)
		return
	}
	r.timer.Stop()
	st.refresh = nil
	kept, excluded := headerChecked(r.sess, r.raw)
	noteExcluded(r.sess, excluded)
	r.raw = kept
	st.tools = newToolSet(r.raw)
	st.listing.Tools, st.listing.Raw.Tools, st.listing.Has.Tools = nil, r.raw, true
	for _, call := range r.calls {
		if !call.done {
			c.dispatch(st, call)
		}
	}
}

// refreshFailed ends the calls that waited for a tool list that did not come.
func (c *Conn) refreshFailed(st *connState, r *refresh, err error) {
	if st.refresh != r {
		return
	}
	st.refresh = nil
	r.timer.Stop()
	for _, call := range r.calls {
		retried, aerr := c.authorizeCall(st, call, err)
		if retried {
			continue
		}
		if authFailed(aerr) {
			c.finish(st, call, nil, &CallError{Reason: aerr.Error(), Err: aerr})
			continue
		}
		c.finish(st, call, nil, fmt.Errorf("the tool list could not be read to check the call (tools/list): %w", err))
	}
}

// refreshTimer ends a tool list the server left unanswered.
type refreshTimer struct {
	r      *refresh
	budget time.Duration
}

func (m refreshTimer) apply(c *Conn, st *connState) {
	if st.refresh != m.r {
		return
	}
	for key, p := range st.pending {
		if p.refresh == m.r {
			c.cancelRequest(st, key, "run-mcp's budget for it ran out")
		}
	}
	var report *ProcessReport
	if s := m.r.sess; s.proc != nil {
		r := s.report(st.stderr, 0)
		report = &r
	}
	c.refreshFailed(st, m.r, &RequestTimeoutError{Method: string(mcp.MethodToolsList), Budget: m.budget, Report: report, words: c.env.words.orDefaults()})
}

// nextCursor reads a page's nextCursor ("" when it has none); a cursor that
// is not a string fails.
func nextCursor(page json.RawMessage) (string, error) {
	var p struct {
		NextCursor json.RawMessage `json:"nextCursor"`
	}
	if err := json.Unmarshal(page, &p); err != nil {
		return "", fmt.Errorf("the page is not a list result: %s", wire.JSONWords(err))
	}
	if p.NextCursor == nil || string(p.NextCursor) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(p.NextCursor, &s); err != nil {
		return "", fmt.Errorf("the page's nextCursor is not a string: %s", firstLine(string(p.NextCursor)))
	}
	return s, nil
}

// clipCursor keeps a cursor quoted in a message short: a server chooses it.
func clipCursor(c string) string {
	if r := []rune(c); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return c
}
