package wire

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// A Channel is the way to one target: its stdio pipes (Stdio) or a
// Streamable HTTP endpoint (HTTP). Its owner, the connection's actor, sends
// through it and gets everything the target said, in order, as Inbound
// values on the sink it gave when the channel was made. A channel keeps no
// state its owner needs: noise, transport errors and the end of the channel
// all arrive on the sink as well.
type Channel interface {
	// Send hands one message to the target. It never blocks on a target
	// that stopped reading: what cannot be written at once is queued, and a
	// request that can then not be sent comes back as a Failure.
	Send(Outbound) error
	// Forget says the owner no longer waits for request key (cancelled,
	// timed out). Over HTTP the request's response stream is closed.
	Forget(key string)
	// Close stops the channel: stdin is closed, or the HTTP session ended.
	// The sink's last Inbound (Closed) follows once every reader is done.
	Close() error
	// Done is closed once the last Inbound has been handed to the sink.
	Done() <-chan struct{}
}

// Outbound is one JSON-RPC message for a target.
type Outbound struct {
	// Msg is the message, encoded, on one line, without the newline.
	Msg []byte
	// Key is the IDKey of a request ("" for a notification or a response),
	// so that a request that cannot be delivered is reported as a Failure.
	Key string
	// Method and Name are what 2026-07-28 asks for in the Mcp-Method and
	// Mcp-Name headers over HTTP: the method, and the tool or prompt name
	// or resource URI for tools/call, prompts/get and resources/read.
	Method, Name string
	// Protocol is the revision the connection speaks ("" before the
	// handshake settled it): over HTTP it is sent as MCP-Protocol-Version.
	Protocol string
	// Headers are more HTTP headers of this request (a 2026-07-28 tool's
	// Mcp-Param-* headers); stdio has none.
	Headers map[string]string
}

// Message is one JSON-RPC message a target sent, decoded once: what routes
// it, and the rest as the bytes the target sent.
type Message struct {
	// ID is the id as sent (a JSON string or number); nil for a
	// notification.
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *RPCError
	// Stream is the key of the request on whose HTTP response stream the
	// message came ("" on stdio and on the standalone GET stream): a
	// server's request there belongs to that request.
	Stream string
	// Line is its position among the lines the target wrote to stdout
	// (0 over HTTP).
	Line int
	Time time.Time
	// Invalid says how a request breaks JSON-RPC (an empty method); such a
	// request is delivered only so that its sender gets an error answer.
	Invalid string
	// Tool is the result decoded as a tool result, for a big answer to a
	// tool call that the stdio channel decoded as one where it read the
	// line (see decoder.toolAnswer). Result is then nil: ResultBytes finds
	// the bytes in the line when they are needed after all.
	Tool *mcp.CallToolResult
	line []byte
}

// ResultBytes is the result as the target sent it. For an answer decoded
// as a tool result (Tool) the bytes were left in the line, and finding
// them there again costs a decode of the whole line.
func (m *Message) ResultBytes() json.RawMessage {
	if m.Tool == nil {
		return m.Result
	}
	var env envelope
	if err := json.Unmarshal(m.line, &env); err != nil {
		return nil // the line decoded once already: it cannot fail now
	}
	return json.RawMessage(env.Result)
}

// IsRequest says the message is a request from the target.
func (m *Message) IsRequest() bool { return m.Method != "" && m.ID != nil }

// IsNotification says the message is a notification from the target.
func (m *Message) IsNotification() bool { return m.Method != "" && m.ID == nil }

// RPCError is a JSON-RPC error object, its data as sent.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Inbound is what a channel hands its owner, in the order it happened.
type Inbound struct {
	Messages []Message
	// Noise are stdout lines that are not JSON-RPC; Errors are messages
	// that parsed as JSON but break JSON-RPC or the era's rules, and faults
	// of the channel itself.
	Noise  []Noise
	Errors []TransportError
	// Failed are requests that never reached the target, or whose answer
	// can no longer come (an HTTP error status, a write that timed out).
	Failed []Failure
	// Redirects are HTTP redirects the channel followed.
	Redirects []Redirect
	// Closed marks the channel's last Inbound; Err says why it ended (nil
	// or io.EOF: the target closed it, or Close was called).
	Closed bool
	Err    error
}

// Failure is a request that failed in the channel, by its key.
type Failure struct {
	Key string
	Err error
}

// Redirect is one HTTP redirect: where a request was sent on to, and the
// names of the credentials (headers) that were kept from the new origin.
type Redirect struct {
	Status   int      `json:"status"`
	From     string   `json:"from"`
	To       string   `json:"to"`
	Withheld []string `json:"withheld,omitempty"` // header names, never values
}

// IDKey is the form requests are filed under: the id's JSON text, so that
// the string "1" and the number 1 stay apart.
func IDKey(id json.RawMessage) string { return string(bytes.TrimSpace(id)) }
