package oauth

import (
	"strings"
)

// Challenge is what a server's refusal said: its HTTP status (401 or 403)
// and its WWW-Authenticate header values, as sent.
type Challenge struct {
	Status int
	Header []string
}

// bearer is the Bearer challenge's parameters (RFC 6750 §3, RFC 9728 §5.1).
type bearer struct {
	found            bool
	resourceMetadata string
	scope            string
	err              string
	description      string
}

// bearer reads the Bearer challenge out of c's header values.
func (c Challenge) bearer() bearer {
	for _, ch := range parseChallenges(c.Header) {
		if ch.scheme != "bearer" {
			continue
		}
		return bearer{found: true, resourceMetadata: ch.params["resource_metadata"], scope: ch.params["scope"],
			err: ch.params["error"], description: ch.params["error_description"]}
	}
	return bearer{}
}

// InsufficientScope says c asks for more scope: a 403 whose Bearer
// challenge says insufficient_scope (step-up).
func (c Challenge) InsufficientScope() bool {
	return c.Status == 403 && c.bearer().err == "insufficient_scope"
}

// Asks says c is a refusal authorization can answer: a 401, or a 403 that
// asks for more scope.
func (c Challenge) Asks() bool { return c.Status == 401 || c.InsufficientScope() }

// scopes are the scopes c names (space-separated, RFC 6749 §3.3).
func (c Challenge) scopes() []string { return strings.Fields(c.bearer().scope) }

// challenge is one auth-scheme and its parameters (RFC 9110 §11.6.1).
type challenge struct {
	scheme string
	params map[string]string
}

// parseChallenges reads every challenge of the WWW-Authenticate values: a
// scheme, then comma-separated name=value parameters (a value is a token or
// a quoted string). A new challenge starts at a token that is not followed
// by "=". A token68 is skipped. Parameter names are case-insensitive.
func parseChallenges(values []string) []challenge {
	var out []challenge
	for _, v := range values {
		p := &headerParser{s: v}
		for {
			p.skip(" \t,")
			if p.done() {
				break
			}
			scheme := p.token()
			if scheme == "" {
				p.pos++ // not a token: step over it
				continue
			}
			ch := challenge{scheme: strings.ToLower(scheme), params: map[string]string{}}
			for {
				save := p.pos
				p.skip(" \t,")
				name := p.token()
				p.skip(" \t")
				if name == "" || p.peek() != '=' {
					p.pos = save
					break
				}
				p.pos++
				p.skip(" \t")
				var value string
				if p.peek() == '"' {
					value = p.quoted()
				} else {
					value = p.token()
					for p.peek() == '=' { // the padding of a token68
						p.pos++
					}
				}
				ch.params[strings.ToLower(name)] = value
			}
			out = append(out, ch)
		}
	}
	return out
}

type headerParser struct {
	s   string
	pos int
}

func (p *headerParser) done() bool { return p.pos >= len(p.s) }

func (p *headerParser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.pos]
}

func (p *headerParser) skip(set string) {
	for !p.done() && strings.IndexByte(set, p.s[p.pos]) >= 0 {
		p.pos++
	}
}

// token reads RFC 9110 tchars (and "/" and ":", which unquoted URLs in
// careless challenges carry).
func (p *headerParser) token() string {
	start := p.pos
	for !p.done() {
		c := p.s[p.pos]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`",;=\()<>@[]?{}`, c) >= 0 {
			break
		}
		p.pos++
	}
	return p.s[start:p.pos]
}

// quoted reads a quoted string, undoing its backslash escapes.
func (p *headerParser) quoted() string {
	p.pos++ // the opening quote
	var b strings.Builder
	for !p.done() {
		c := p.s[p.pos]
		p.pos++
		switch {
		case c == '"':
			return b.String()
		case c == '\\' && !p.done():
			b.WriteByte(p.s[p.pos])
			p.pos++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
