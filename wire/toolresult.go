package wire

import (
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/jsonscan"
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

// ParseToolResult decodes a tools/call result. mcp-go's own parser decodes
// a result four or five times and copies every content item on the way,
// which for a 20 MB text is most of run-mcp's peak memory. Here the result
// is walked once (scanToolResult) and each text is unquoted straight into
// its final string; only small members and other kinds of content go
// through encoding/json and mcp-go. What the walk leaves alone is decoded
// by encoding/json as before, with the same value or the same error.
func ParseToolResult(raw json.RawMessage) (*mcp.CallToolResult, error) {
	r, ok := scanToolResult(raw)
	if !ok {
		r = toolResult{}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("decode the tool result: %w", err)
		}
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

// scanToolResult is the one-pass decode; ok is false where it would not
// give exactly what encoding/json gives.
func scanToolResult(raw []byte) (toolResult, bool) {
	var r toolResult
	ok := jsonscan.Object(raw, func(key string, val []byte) bool {
		switch key {
		case "content":
			return scanContent(&r, val)
		case "structuredContent": // aliased, as encoding/json's copy would hold it
			r.StructuredContent = append(json.RawMessage(nil), val...)
			return true
		case "_meta":
			return json.Unmarshal(val, &r.Meta) == nil
		case "resultType":
			return json.Unmarshal(val, &r.ResultType) == nil
		case "isError":
			return json.Unmarshal(val, &r.IsError) == nil
		case "inputRequests":
			return json.Unmarshal(val, &r.InputRequests) == nil
		case "requestState":
			return json.Unmarshal(val, &r.RequestState) == nil
		}
		return !foldsTo(key, "content", "structuredContent", "_meta", "resultType", "isError", "inputRequests", "requestState")
	})
	return r, ok
}

func scanContent(r *toolResult, val []byte) bool {
	if string(val) == "null" {
		r.Content = nil
		return true
	}
	items := []contentItem{}
	ok := jsonscan.Array(val, func(item []byte) bool {
		var c contentItem
		if text, ok := scanText(item); ok {
			c.content = text
		} else if c.UnmarshalJSON(item) != nil {
			return false
		}
		items = append(items, c)
		return true
	})
	r.Content = items
	return ok
}

// scanText decodes a plain text item, its text unquoted in one pass; ok is
// false for anything else, which contentItem then decodes.
func scanText(item []byte) (mcp.TextContent, bool) {
	var (
		text             mcp.TextContent
		isText, haveText bool
	)
	ok := jsonscan.Object(item, func(key string, val []byte) bool {
		switch key {
		case "type":
			isText = string(val) == `"text"`
			return isText
		case "text":
			s, ok := jsonscan.Unquote(val)
			text.Text, haveText = s, ok
			return ok
		case "annotations":
			return json.Unmarshal(val, &text.Annotations) == nil
		case "_meta":
			return json.Unmarshal(val, &text.Meta) == nil
		}
		return !foldsTo(key, "type", "text", "annotations", "_meta", "data")
	})
	if !ok || !isText || !haveText {
		return mcp.TextContent{}, false
	}
	text.Type = "text"
	return text, true
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
