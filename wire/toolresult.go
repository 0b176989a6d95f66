package wire

import (
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// toolResult is a tools/call result as it is decoded, before it becomes an
// mcp.CallToolResult. Item is how one content item decodes: itemFields on
// the common path, contentItem when that path cannot be taken.
type toolResult[Item any] struct {
	Meta              *mcp.Meta         `json:"_meta"`
	ResultType        mcp.ResultType    `json:"resultType"`
	Content           []Item            `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent"`
	IsError           bool              `json:"isError"`
	InputRequests     mcp.InputRequests `json:"inputRequests"`
	RequestState      string            `json:"requestState"`
}

// ParseToolResult decodes a tools/call result with encoding/json, each
// text landing in its final string straight from the bytes the server
// sent (mcp-go's own parser decodes a result four or five times and copies
// every content item on the way).
//
// It decodes in one pass whenever it can: json.Unmarshal reads every byte
// once to check the whole, and then once more for each value it hands to
// an UnmarshalJSON method, so an item type with such a method reads a 20 MB
// text three more times before decoding it. The items of the common kinds
// (text, image, audio) are plain structs with every field those kinds use;
// a result holding any other kind, or one these structs cannot hold (a
// field of another type), is decoded again item by item through mcp-go, so
// what it becomes, or the error it gets, is exactly what it was.
func ParseToolResult(raw json.RawMessage) (*mcp.CallToolResult, error) {
	var fast toolResult[itemFields]
	if err := json.Unmarshal(raw, &fast); err == nil {
		if content, ok := commonContent(fast.Content); ok {
			return toolResultOf(fast, content)
		}
	}
	var r toolResult[contentItem]
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("decode the tool result: %w", err)
	}
	content := make([]mcp.Content, 0, len(r.Content))
	for _, item := range r.Content {
		content = append(content, item.content)
	}
	return toolResultOf(r, content)
}

// toolResultOf builds the result from what was decoded and its content.
func toolResultOf[Item any](r toolResult[Item], content []mcp.Content) (*mcp.CallToolResult, error) {
	if r.Content == nil && r.ResultType != mcp.ResultTypeInputRequired {
		return nil, fmt.Errorf("the tool result has no content array")
	}
	res := &mcp.CallToolResult{Result: mcp.Result{Meta: r.Meta}, IsError: r.IsError}
	res.ResultType, res.InputRequests, res.RequestState = r.ResultType, r.InputRequests, r.RequestState
	res.Content = content
	if len(r.StructuredContent) > 0 && string(r.StructuredContent) != "null" {
		res.RawStructuredContent = r.StructuredContent
		if err := json.Unmarshal(r.StructuredContent, &res.StructuredContent); err != nil {
			return nil, fmt.Errorf("decode structuredContent: %w", err)
		}
	}
	return res, nil
}

// itemFields is one content item of a common kind, every field text,
// image and audio use, decoded as mcp-go decodes each kind's own struct.
type itemFields struct {
	Type        *string          `json:"type"`
	Text        *string          `json:"text"`
	Data        *string          `json:"data"`
	MIMEType    *string          `json:"mimeType"`
	Annotations *mcp.Annotations `json:"annotations"`
	Meta        *mcp.Meta        `json:"_meta"`
}

// commonContent builds the content from items of the common kinds; ok is
// false when an item is of another kind, which mcp-go must decode itself.
func commonContent(items []itemFields) (content []mcp.Content, ok bool) {
	content = make([]mcp.Content, 0, len(items))
	for _, it := range items {
		if it.Type == nil {
			return nil, false
		}
		ann := mcp.Annotated{Annotations: it.Annotations}
		switch *it.Type {
		case mcp.ContentTypeText:
			content = append(content, mcp.TextContent{Annotated: ann, Meta: it.Meta, Type: *it.Type, Text: deref(it.Text)})
		case mcp.ContentTypeImage:
			content = append(content, mcp.ImageContent{Annotated: ann, Meta: it.Meta, Type: *it.Type, Data: deref(it.Data), MIMEType: deref(it.MIMEType)})
		case mcp.ContentTypeAudio:
			content = append(content, mcp.AudioContent{Annotated: ann, Meta: it.Meta, Type: *it.Type, Data: deref(it.Data), MIMEType: deref(it.MIMEType)})
		default:
			return nil, false
		}
	}
	return content, true
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// contentItem decodes one content item of any kind through mcp-go.
type contentItem struct{ content mcp.Content }

func (c *contentItem) UnmarshalJSON(b []byte) error {
	content, err := mcp.UnmarshalContent(b)
	if err != nil {
		return err
	}
	c.content = content
	return nil
}
