package actors

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/jsonscan"
	"github.com/run-mcp/run-mcp/internal/snapshot"
)

// listsRaw says whether the tools are listed past the client: over stdio
// on a legacy-era connection. Over HTTP the client keeps the typed
// definitions to mirror arguments into headers, and on a 2026-07-28
// connection it puts the request envelope in every request's _meta; there
// the tools are listed through it (listTools).
func (s *session) listsRaw() bool {
	return !s.cfg.IsHTTP() && (s.init == nil || !mcp.IsModernProtocol(s.init.ProtocolVersion))
}

// listToolsRaw lists the tools page by page, each entry as the server sent
// it, without mcp-go's typed decode. The typed list is for run-mcp's checks
// of a call and is decoded from these entries when one needs it (toolSet);
// a listing that is only printed never pays for it (mcp-go's schema types
// decode ten to twenty times slower than the listing is read).
func (c *Conn) listToolsRaw(ctx context.Context, s *session) ([]json.RawMessage, error) {
	method := string(mcp.MethodToolsList)
	raw := []json.RawMessage{}
	err := c.request(ctx, s, method, func(ctx context.Context) error {
		seen := map[string]bool{}
		params := mcp.PaginatedParams{}
		for {
			page, err := s.listPage(ctx, method, params)
			if err != nil {
				return err
			}
			items, err := snapshot.Items(page, "tools")
			if err != nil {
				return fmt.Errorf("read the tools the server sent: %w", err)
			}
			raw = append(raw, items...)
			next, err := nextCursor(page)
			if err != nil || next == "" {
				return err
			}
			if seen[next] {
				return fmt.Errorf("the server's tools listing repeats the cursor %q: it would never end. A server must give each page a new cursor", clipCursor(next))
			}
			seen[next], params.Cursor = true, mcp.Cursor(next)
		}
	})
	if err != nil {
		return nil, wrapMethod(method, err)
	}
	return raw, nil
}

// listPage sends one list request past the client, and fails as the client
// fails (a JSON-RPC error becomes mcp-go's error for its code), so that a
// listing reports the same either way.
func (s *session) listPage(ctx context.Context, method string, params mcp.PaginatedParams) (json.RawMessage, error) {
	resp, err := s.sendRaw(ctx, mcp.NewRequestId(fmt.Sprintf("run-mcp-%d", s.reqSeq.Add(1))), method, params)
	if err != nil {
		return nil, transport.NewError(err)
	}
	if resp.Error != nil {
		return nil, resp.Error.AsError()
	}
	return resp.Result, nil
}

// nextCursor reads a page's nextCursor ("" when it has none), as the
// client's typed decode would: a cursor that is not a string fails.
func nextCursor(page json.RawMessage) (string, error) {
	var v []byte
	if !jsonscan.Object(page, func(key string, val []byte) bool {
		if key == "nextCursor" {
			v = val
		}
		return true
	}) {
		var p struct {
			NextCursor json.RawMessage `json:"nextCursor"`
		}
		if err := json.Unmarshal(page, &p); err != nil {
			return "", fmt.Errorf("failed to unmarshal response: %w", err)
		}
		v = p.NextCursor
	}
	if v == nil || string(v) == "null" {
		return "", nil
	}
	if s, ok := jsonscan.Unquote(v); ok {
		return s, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fmt.Errorf("failed to unmarshal response: nextCursor: %w", err)
	}
	return s, nil
}

// decodeTools is the typed list of raw entries, for run-mcp's checks. An
// entry mcp-go's type cannot hold (a server's mistake, which the listing
// still shows as sent) keeps its name, so that a call to it still reaches
// the server, which has the last word.
func decodeTools(raw []json.RawMessage) []mcp.Tool {
	tools := make([]mcp.Tool, 0, len(raw))
	for _, r := range raw {
		var t mcp.Tool
		if json.Unmarshal(r, &t) != nil {
			t = mcp.Tool{Name: snapshot.Read(r).Name}
		}
		tools = append(tools, t)
	}
	return tools
}

// clipCursor keeps a cursor quoted in a message short: a server chooses it.
func clipCursor(c string) string {
	if r := []rune(c); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return c
}
