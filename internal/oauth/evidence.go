package oauth

import (
	"errors"
	"fmt"
	"strings"
)

// The steps of an authorization, as errors name them.
const (
	StepChallenge     = "challenge"                     // the server's 401 or 403
	StepResource      = "protected-resource metadata"   // RFC 9728
	StepServer        = "authorization-server metadata" // RFC 8414, OpenID discovery
	StepRegistration  = "client registration"           // pre-registered, metadata document, RFC 7591
	StepAuthorization = "authorization"                 // the person at the authorization URL
	StepRedirect      = "redirect"                      // the browser's way back with the code
	StepToken         = "token request"                 // the code exchanged for a token
	StepRefresh       = "token refresh"
	StepStore         = "token store"
	StepScope         = "scope step-up"
)

// Attempt is one exchange of the authorization, as evidence: what was
// asked where and what came back. It never holds a token or a secret.
type Attempt struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	// Result is the status ("404 Not Found") or why nothing came back.
	Result string `json:"result"`
	// Note is what run-mcp made of it ("not JSON", "issuer mismatch", …).
	Note string `json:"note,omitempty"`
}

func (a Attempt) String() string {
	s := fmt.Sprintf("%s %s: %s", a.Method, a.URL, a.Result)
	if a.Note != "" {
		s += " (" + a.Note + ")"
	}
	return s
}

// Error is a failed authorization: the step that failed, why, the evidence
// gathered up to it, and what to change.
type Error struct {
	Server   string
	Step     string
	Reason   string
	Evidence []Attempt
	// Fix says what to change, in the server's or the user's terms.
	Fix string
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "authorization for %s failed at the %s step: %s", e.Server, e.Step, e.Reason)
	if len(e.Evidence) > 0 {
		b.WriteString("\nevidence:")
		for _, a := range e.Evidence {
			b.WriteString("\n  ")
			b.WriteString(a.String())
		}
	}
	if e.Fix != "" {
		b.WriteString("\nfix: ")
		b.WriteString(e.Fix)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// trail is the evidence of one authorization, in order.
type trail struct {
	server   string
	attempts []Attempt
}

func (t *trail) add(a Attempt) { t.attempts = append(t.attempts, a) }

// fail is an *Error at step with the evidence so far.
func (t *trail) fail(step, reason, fix string) *Error {
	return &Error{Server: t.server, Step: step, Reason: reason, Evidence: append([]Attempt(nil), t.attempts...), Fix: fix}
}

// failWith is fail wrapping err.
func (t *trail) failWith(step, reason, fix string, err error) *Error {
	e := t.fail(step, reason, fix)
	e.Err = err
	return e
}

// ErrNobody is a Person's answer when nobody here can open a URL (no
// terminal and no browser; a host that cannot show one).
var ErrNobody = errors.New("nobody here can open the authorization URL")

// ErrDeclined is a Person's answer when the person declined.
var ErrDeclined = errors.New("the person declined to open the authorization URL")
