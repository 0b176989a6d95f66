package intercept

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// ToolResult intercepts a tools/call result. maxText overrides the text
// limit for this call: 0 uses the Interceptor's, NoLimit (-1) disables
// truncation. When nothing needs intercepting, res itself is returned.
// Otherwise the result is a shallow copy with a new content slice; res is
// never modified. StructuredContent, _meta and isError are kept as they were.
func (i *Interceptor) ToolResult(res *mcp.CallToolResult, maxText int) (*mcp.CallToolResult, Stats, error) {
	p := &pass{i: i, limit: i.limitFor(maxText)}
	if res == nil {
		return nil, p.stats, nil
	}
	var content []mcp.Content // allocated on the first change only
	for k, c := range res.Content {
		out, changed, err := p.content(c)
		if err != nil {
			return nil, p.stats, fmt.Errorf("intercepting content item %d of the tool result: %w", k, err)
		}
		if !changed {
			continue
		}
		if content == nil {
			content = append([]mcp.Content(nil), res.Content...)
		}
		content[k] = out
	}
	if content == nil {
		return res, p.stats, nil
	}
	copied := *res
	copied.Content = content
	return &copied, p.stats, nil
}

// content dispatches on the item type. Pointer forms are accepted because
// hand-built results sometimes use them; the replacement is always a value.
func (p *pass) content(c mcp.Content) (mcp.Content, bool, error) {
	switch v := c.(type) {
	case mcp.TextContent:
		return p.text(v)
	case *mcp.TextContent:
		if v != nil {
			return p.text(*v)
		}
	case mcp.ImageContent:
		return p.media(kindImage, v.Annotated, v.Meta, v.Data, v.MIMEType)
	case *mcp.ImageContent:
		if v != nil {
			return p.media(kindImage, v.Annotated, v.Meta, v.Data, v.MIMEType)
		}
	case mcp.AudioContent:
		return p.media(kindAudio, v.Annotated, v.Meta, v.Data, v.MIMEType)
	case *mcp.AudioContent:
		if v != nil {
			return p.media(kindAudio, v.Annotated, v.Meta, v.Data, v.MIMEType)
		}
	case mcp.EmbeddedResource:
		return p.embedded(v)
	case *mcp.EmbeddedResource:
		if v != nil {
			return p.embedded(*v)
		}
	}
	return nil, false, nil
}
