package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/oauth"
	"github.com/run-mcp/run-mcp/wire"
)

// Authorization of an HTTP target. A request the server refuses with 401
// (or 403 insufficient_scope, a step-up) comes back from the channel as a
// Failure whose error carries the server's challenge. When the connection
// authorizes (an HTTP target without an Authorization header of the user's),
// the request is not failed: the authorization runs (internal/oauth:
// discovery, registration, the person at the authorization URL through the
// Host, the token), and the request is sent again with the token, which the
// channel's RoundTripper hook adds, to the target's origin only.
//
//   - the handshake and housekeeping requests run on their operation's
//     goroutine: the authorization runs there, between two attempts, each
//     with a budget of its own, so a person's minutes never spend it;
//   - a call (and the tool list it waits on) opens an authorization round
//     on the actor: its clock pauses (input wait) while the authorization
//     runs on a goroutine of its own, which posts authorized back.
//
// A request is authorized at most maxAuthorizations times: a server that
// keeps refusing (a scope the authorization server never grants) ends it
// with the server's last challenge, as the specification asks of clients.

// maxAuthorizations bounds the authorizations one request may run.
const maxAuthorizations = 3

// newAuth is the authorization of a connection to cfg's target, or nil
// when it does not authorize: a target on stdio, or one the user gives an
// Authorization header of their own.
func newAuth(cfg Config) *oauth.Client {
	if !cfg.IsHTTP() || cfg.NoOAuth {
		return nil
	}
	for k := range cfg.Headers {
		if strings.EqualFold(k, "Authorization") {
			return nil
		}
	}
	return oauth.New(cfg.URL, cfg.OAuth)
}

// sameAuth says a connection's authorization serves cfg as it is.
func sameAuth(a *oauth.Client, cfg Config, old Config) bool {
	return a != nil && a.Server() == cfg.URL && cfg.OAuth == old.OAuth && cfg.NoOAuth == old.NoOAuth &&
		hasAuthorization(cfg.Headers) == hasAuthorization(old.Headers)
}

func hasAuthorization(h map[string]string) bool {
	for k := range h {
		if strings.EqualFold(k, "Authorization") {
			return true
		}
	}
	return false
}

// challengeOf is the server's refusal err carries, when it is one
// authorization may answer.
func challengeOf(err error) (oauth.Challenge, bool) {
	var se *wire.StatusError
	if !errors.As(err, &se) || (se.Code != http.StatusUnauthorized && se.Code != http.StatusForbidden) {
		return oauth.Challenge{}, false
	}
	ch := oauth.Challenge{Status: se.Code, Header: se.Authenticate}
	return ch, ch.Asks()
}

// authorize answers s's refusal err, when the connection authorizes and
// tries is under the limit: nil means send the request again. Otherwise it
// returns err, or the authorization's failure, or the refusal that
// outlasted the limit (in words).
func (c *Conn) authorize(ctx context.Context, s *session, err error, tries int, person *hostPerson) error {
	ch, ok := challengeOf(err)
	if !ok || s.auth == nil {
		return err
	}
	if tries >= maxAuthorizations {
		return refusedAfter(s, err, ch, tries)
	}
	person.c = c
	return s.auth.Authorize(ctx, ch, person)
}

// refusedAfter is a server that still refuses after tries authorizations.
func refusedAfter(s *session, err error, ch oauth.Challenge, tries int) error {
	what := "keeps answering 401"
	fix := "check that it accepts the tokens its authorization server issues for it (audience, issuer, signature, expiry)"
	if ch.InsufficientScope() {
		what = "keeps answering 403 insufficient_scope"
		fix = "its authorization server does not grant the scope the server asks for (see its WWW-Authenticate scope): check the authorization server's policy for this client and user"
	}
	return &oauth.Error{Server: s.cfg.URL, Step: oauth.StepScope,
		Reason: fmt.Sprintf("the server %s after %d authorizations; run-mcp stopped there, as the specification asks of a client (a retry limit). Its last answer: %v", what, tries, err),
		Fix:    fix, Err: err}
}

// authFailed says err is the authorization's own failure (not the
// server's answer to a request).
func authFailed(err error) bool {
	var oe *oauth.Error
	var pe *oauth.PersonNeededError
	return errors.As(err, &oe) || errors.As(err, &pe)
}

// relisten opens the standalone event stream again once authorized: a
// server that refused it before gets the token now (a 2026-07-28
// connection, or one whose stream is open, is left as it is).
func (s *session) relisten() {
	if s.http != nil {
		s.http.Listen()
	}
}

// hostPerson asks the Host to open an authorization URL: a URL-mode
// elicitation, which the agent server relays to a host that declared it and
// a headless front end opens in a browser. It records how the question
// went, for the round a call reports.
type hostPerson struct {
	c        *Conn
	carriers []any // the calls the question may ride on (a 2026-07-28 host)
	paused   int
	asked    bool
	outcome  string
	question string
	took     time.Duration
}

func (p *hostPerson) Visit(ctx context.Context, v oauth.Visit) error {
	start := time.Now()
	defer func() { p.took = time.Since(start) }()
	p.asked = true
	p.question = "authorize run-mcp for " + v.Server
	msg := fmt.Sprintf("run-mcp needs your authorization to reach the MCP server at %s: open this URL to sign in with %s and allow it. The browser comes back to %s.",
		v.Server, v.Issuer, v.Redirect)
	params, _ := json.Marshal(map[string]any{"mode": "url", "message": msg, "url": v.URL,
		"elicitationId": "run-mcp-authorization-" + strconv.FormatInt(p.c.env.elicitSeq.Add(1), 10)})
	visit := v
	answers := p.c.env.host.Ask(ctx, Question{Conn: p.c.name, Carriers: p.carriers, Paused: p.paused,
		Items: []Item{{Method: string(mcp.MethodElicitationCreate), Params: params, Authorize: &visit}}})
	if len(answers) == 0 {
		p.outcome = "refused"
		return errors.New("the host gave no answer")
	}
	a := answers[0]
	switch {
	case a.NoOneToAsk:
		p.outcome = "nobody to ask"
		return oauth.ErrNobody
	case a.Err != nil:
		p.outcome = "refused"
		return a.Err
	}
	var res struct {
		Action string `json:"action"`
	}
	_ = json.Unmarshal(a.Result, &res)
	switch res.Action {
	case "accept":
		p.outcome = "accepted"
		return nil
	case "decline":
		p.outcome = "declined"
	default:
		p.outcome = "cancelled"
	}
	return oauth.ErrDeclined
}

// round is how the question went, as a call reports it (nil: nobody was
// asked, as when a refresh was enough).
func (p *hostPerson) round() *Round {
	if !p.asked {
		return nil
	}
	return &Round{Kind: "authorization", Mode: "url", Question: p.question, Outcome: p.outcome, Duration: p.took, MS: p.took.Milliseconds()}
}

// authorizeCall answers the refusal of a call's request (or of the tool
// list it waited on): its clock pauses while the authorization runs, and
// authorized sends it again or ends it. false: the refusal is not one to
// answer (no authorization, or the limit reached), and err stands.
func (c *Conn) authorizeCall(st *connState, call *callState, err error) (bool, error) {
	s := call.sess
	if s == nil {
		s = st.sess
	}
	if _, ok := challengeOf(err); !ok || s == nil || s.auth == nil {
		return false, err
	}
	if call.authTries >= maxAuthorizations {
		ch, _ := challengeOf(err)
		return false, refusedAfter(s, err, ch, call.authTries)
	}
	call.authTries++
	now := time.Now()
	c.pause(call, now)
	ctx, cancel := context.WithCancel(context.Background())
	call.authCancel = cancel
	p := &hostPerson{paused: 1}
	if call.req.Tag != nil {
		p.carriers = []any{call.req.Tag}
	}
	tries := call.authTries - 1
	go func() {
		aerr := c.authorize(ctx, s, err, tries, p)
		if aerr == nil {
			s.relisten()
		}
		c.post(authorized{call: call, err: aerr, person: p, opened: now})
	}()
	return true, nil
}

// authorized is the end of a call's authorization.
type authorized struct {
	call   *callState
	err    error
	person *hostPerson
	opened time.Time
}

func (m authorized) apply(c *Conn, st *connState) {
	call := m.call
	if call.done {
		return
	}
	call.authCancel()
	call.authCancel = nil
	c.resume(call, time.Now())
	if r := m.person.round(); r != nil {
		call.rounds = append(call.rounds, *r)
	}
	if m.err != nil {
		c.finish(st, call, nil, &CallError{Reason: m.err.Error(), Err: m.err})
		return
	}
	s := call.sess
	if s == nil {
		s = st.sess
	}
	if s == nil || s != st.sess || s.retired || s.channelEnded {
		c.finish(st, call, nil, c.diedDuringCall(st, call))
		return
	}
	if call.sent {
		c.sendCall(st, call, call.responses, call.state)
		return
	}
	call.relisted = false
	c.dispatch(st, call)
}
