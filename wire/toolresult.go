package wire

import (
	"bytes"
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
// give exactly what encoding/json gives. Each text is read once by the
// walk's own scan and once as it is unquoted; nothing else reads it.
func scanToolResult(raw []byte) (toolResult, bool) {
	var r toolResult
	ok := jsonscan.Whole(raw, func(i int) (int, bool) {
		return jsonscan.ObjectAt(raw, i, func(key string, i int) (int, bool) {
			switch key {
			case "content":
				return scanContent(&r, raw, i)
			case "structuredContent": // a copy, as encoding/json's would be
				end, ok := jsonscan.Skip(raw, i)
				if ok {
					r.StructuredContent = append(json.RawMessage(nil), raw[i:end]...)
				}
				return end, ok
			case "_meta":
				return decodeAt(raw, i, &r.Meta)
			case "resultType":
				return decodeAt(raw, i, &r.ResultType)
			case "isError":
				return decodeAt(raw, i, &r.IsError)
			case "inputRequests":
				return decodeAt(raw, i, &r.InputRequests)
			case "requestState":
				return decodeAt(raw, i, &r.RequestState)
			}
			if foldsTo(key, "content", "structuredContent", "_meta", "resultType", "isError", "inputRequests", "requestState") {
				return 0, false
			}
			return jsonscan.Skip(raw, i)
		})
	})
	return r, ok
}

func scanContent(r *toolResult, raw []byte, i int) (int, bool) {
	if bytes.HasPrefix(raw[i:], []byte("null")) {
		r.Content = nil
		return jsonscan.Skip(raw, i)
	}
	items := []contentItem{}
	end, ok := jsonscan.ArrayAt(raw, i, func(i int) (int, bool) {
		var c contentItem
		end, ok := scanText(raw, i, &c)
		if !ok { // not plain text: decoded as before
			if end, ok = jsonscan.Skip(raw, i); !ok || c.UnmarshalJSON(raw[i:end]) != nil {
				return 0, false
			}
		}
		items = append(items, c)
		return end, true
	})
	r.Content = items
	return end, ok
}

// scanText decodes the plain text item at raw[i:] into c, its text
// unquoted in one pass; ok is false for anything else, which contentItem
// then decodes.
func scanText(raw []byte, i int, c *contentItem) (int, bool) {
	var (
		text             mcp.TextContent
		isText, haveText bool
	)
	end, ok := jsonscan.ObjectAt(raw, i, func(key string, i int) (int, bool) {
		switch key {
		case "type":
			end, ok := jsonscan.Skip(raw, i)
			isText = ok && string(raw[i:end]) == `"text"`
			return end, isText
		case "text":
			s, end, ok := jsonscan.UnquoteAt(raw, i)
			text.Text, haveText = s, ok
			return end, ok
		case "annotations":
			return decodeAt(raw, i, &text.Annotations)
		case "_meta":
			return decodeAt(raw, i, &text.Meta)
		}
		if foldsTo(key, "type", "text", "annotations", "_meta", "data") {
			return 0, false
		}
		return jsonscan.Skip(raw, i)
	})
	if !ok || !isText || !haveText {
		return 0, false
	}
	text.Type = "text"
	c.content = text
	return end, true
}

// decodeAt decodes the JSON value at raw[i:] into v with encoding/json and
// returns the index just past it.
func decodeAt(raw []byte, i int, v any) (int, bool) {
	end, ok := jsonscan.Skip(raw, i)
	return end, ok && json.Unmarshal(raw[i:end], v) == nil
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
