package intercept

import (
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// ToolResult intercepts a tools/call result. maxText overrides the text
// limit for this call: 0 uses the Interceptor's, NoLimit (-1) disables
// truncation. The limit bounds the text of the whole result, not of each
// item: the text items together show at most that many characters, and a
// structuredContent whose JSON is longer is spilled the same way. When
// nothing needs intercepting, res itself is returned. Otherwise the result
// is a shallow copy with a new content slice; res is never modified. _meta
// and isError are kept as they were.
func (i *Interceptor) ToolResult(res *mcp.CallToolResult, maxText int) (*mcp.CallToolResult, Stats, error) {
	p := &pass{i: i, limit: i.limitFor(maxText)}
	if res == nil {
		return nil, p.stats, nil
	}
	views := make([]contentView, len(res.Content))
	changed := false
	for k, c := range res.Content {
		v, err := p.view(c)
		if err != nil {
			return nil, p.stats, fmt.Errorf("intercepting content item %d of the tool result: %w", k, err)
		}
		views[k], changed = v, changed || v.changed
	}
	views, cut, err := p.boundText(views)
	if err != nil {
		return nil, p.stats, fmt.Errorf("saving the tool result's text: %w", err)
	}
	note, spilled, err := p.structured(res)
	if err != nil {
		return nil, p.stats, fmt.Errorf("saving the tool result's structuredContent: %w", err)
	}
	if !changed && !cut && !spilled {
		return res, p.stats, nil
	}
	copied := *res
	copied.Content = contentOf(views)
	if spilled {
		copied.StructuredContent, copied.RawStructuredContent = nil, nil
		copied.Content = append(copied.Content, mcp.NewTextContent(note))
	}
	return &copied, p.stats, nil
}

// contentView is one content item while a result is intercepted. A text
// item keeps its text apart, since the limit on the whole result's text
// may still cut it; changed says the item is no longer the one sent.
type contentView struct {
	item    mcp.Content
	isText  bool
	text    mcp.TextContent
	changed bool
}

// view intercepts one item by itself: media and embedded resources are
// saved, a text that is one big base64 blob too (its note is not text of
// the result); other text waits for boundText.
func (p *pass) view(c mcp.Content) (contentView, error) {
	if tc, ok := asText(c); ok {
		p.stats.OriginalSizeBytes += len(tc.Text)
		note, saved, err := p.saveBase64Text(tc.Text)
		if err != nil {
			return contentView{}, err
		}
		if saved {
			tc.Text = note
			return contentView{item: tc, changed: true}, nil
		}
		return contentView{item: c, isText: true, text: tc}, nil
	}
	out, changed, err := p.content(c)
	if err != nil || !changed {
		return contentView{item: c}, err
	}
	return contentView{item: out, changed: true}, nil
}

// asText reads a text item, in either of the forms hand-built results use.
func asText(c mcp.Content) (mcp.TextContent, bool) {
	switch v := c.(type) {
	case mcp.TextContent:
		return v, true
	case *mcp.TextContent:
		if v != nil {
			return *v, true
		}
	}
	return mcp.TextContent{}, false
}

// contentOf is the content the views stand for.
func contentOf(views []contentView) []mcp.Content {
	out := make([]mcp.Content, len(views))
	for k, v := range views {
		if v.isText && v.changed {
			out[k] = v.text
			continue
		}
		out[k] = v.item
	}
	return out
}

// structured spills a structuredContent whose JSON is over the limit, as
// text is: the whole is saved for read_result, and since a head of JSON is
// no object, it leaves the result and a text item at the end carries its
// head and the note.
func (p *pass) structured(res *mcp.CallToolResult) (note string, spilled bool, err error) {
	raw := res.RawStructuredContent
	if len(raw) == 0 && res.StructuredContent != nil {
		if raw, err = json.Marshal(res.StructuredContent); err != nil {
			return "", false, err
		}
	}
	if p.limit == NoLimit || len(raw) <= p.limit {
		return "", false, nil
	}
	chars := utf8.RuneCount(raw)
	if chars <= p.limit {
		return "", false, nil
	}
	id, path, err := p.spill(chars, func(w io.Writer) error {
		_, err := w.Write(raw)
		return err
	})
	if err != nil {
		return "", false, err
	}
	head := headRunes(string(raw[:min(len(raw), p.limit*utf8.UTFMax)]), p.limit)
	return fmt.Sprintf("structuredContent (%s chars of JSON, over the text limit):\n%s%s", commas(chars), head, noteAfter(p.limit, p.note(p.limit, chars, path, id))), true, nil
}

// content intercepts an item that is not text. Pointer forms are accepted
// because hand-built results sometimes use them; the replacement is always
// a value.
func (p *pass) content(c mcp.Content) (mcp.Content, bool, error) {
	switch v := c.(type) {
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
