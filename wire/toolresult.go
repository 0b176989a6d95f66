package wire

import (
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// toolResult is a tools/call result as it is decoded, before it becomes an
// mcp.CallToolResult.
type toolResult struct {
	Meta              *mcp.Meta         `json:"_meta"`
	ResultType        mcp.ResultType    `json:"resultType"`
	Content           []contentItem     `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent"`
	IsError           bool              `json:"isError"`
	InputRequests     mcp.InputRequests `json:"inputRequests"`
	RequestState      string            `json:"requestState"`
}

// ParseToolResult decodes a tools/call result. It decodes once with
// encoding/json (mcp-go's own parser decodes a result four or five times and
// copies every content item on the way): each text lands in its final string
// straight from the bytes the server sent.
func ParseToolResult(raw json.RawMessage) (*mcp.CallToolResult, error) {
	var r toolResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("decode the tool result: %w", err)
	}
	if r.Content == nil && r.ResultType != mcp.ResultTypeInputRequired {
		return nil, fmt.Errorf("the tool result has no content array")
	}
	res := &mcp.CallToolResult{Result: mcp.Result{Meta: r.Meta}, IsError: r.IsError}
	res.ResultType, res.InputRequests, res.RequestState = r.ResultType, r.InputRequests, r.RequestState
	res.Content = make([]mcp.Content, 0, len(r.Content))
	for _, item := range r.Content {
		res.Content = append(res.Content, item.content)
	}
	if len(r.StructuredContent) > 0 && string(r.StructuredContent) != "null" {
		res.RawStructuredContent = r.StructuredContent
		if err := json.Unmarshal(r.StructuredContent, &res.StructuredContent); err != nil {
			return nil, fmt.Errorf("decode structuredContent: %w", err)
		}
	}
	return res, nil
}

// contentItem decodes one content item, plain text directly.
type contentItem struct{ content mcp.Content }

func (c *contentItem) UnmarshalJSON(b []byte) error {
	var text struct {
		Type        string           `json:"type"`
		Text        *string          `json:"text"`
		Annotations *mcp.Annotations `json:"annotations"`
		Meta        *mcp.Meta        `json:"_meta"`
		Other       json.RawMessage  `json:"data"`
	}
	if err := json.Unmarshal(b, &text); err == nil && text.Type == "text" && text.Text != nil && text.Other == nil {
		c.content = mcp.TextContent{Type: "text", Text: *text.Text, Annotated: mcp.Annotated{Annotations: text.Annotations}, Meta: text.Meta}
		return nil
	}
	content, err := mcp.UnmarshalContent(b)
	if err != nil {
		return err
	}
	c.content = content
	return nil
}
