package intercept

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// ResourceResult intercepts a resources/read result the same way ToolResult
// does: blobs are saved like media, text over the limit is spilled (the
// limit bounds the text of all the entries together: an entry past what
// the ones before it left is cut), and an untouched result is returned as
// the same pointer.
func (i *Interceptor) ResourceResult(res *mcp.ReadResourceResult, maxText int) (*mcp.ReadResourceResult, Stats, error) {
	p := &pass{i: i, limit: i.limitFor(maxText), shared: true}
	p.left = p.limit
	if res == nil {
		return nil, p.stats, nil
	}
	var contents []mcp.ResourceContents // allocated on the first change only
	for k, rc := range res.Contents {
		out, changed, err := p.resource(rc)
		if err != nil {
			return nil, p.stats, fmt.Errorf("intercepting contents entry %d of the resource: %w", k, err)
		}
		if !changed {
			continue
		}
		if contents == nil {
			contents = append([]mcp.ResourceContents(nil), res.Contents...)
		}
		contents[k] = out
	}
	if contents == nil {
		return res, p.stats, nil
	}
	copied := *res
	copied.Contents = contents
	return &copied, p.stats, nil
}
