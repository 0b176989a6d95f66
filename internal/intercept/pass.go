package intercept

import (
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// pass is the state of intercepting one result: the limit in force for this
// call and the stats gathered so far. shared makes the resource texts of a
// resources/read result share the limit, left being what remains of it.
type pass struct {
	i      *Interceptor
	limit  int
	shared bool
	left   int
	stats  Stats
}

// media handles an image or audio item. The replacement keeps the item's
// annotations and _meta, which describe audience and priority.
func (p *pass) media(kind mediaKind, ann mcp.Annotated, meta *mcp.Meta, data, mimeType string) (mcp.Content, bool, error) {
	p.stats.OriginalSizeBytes += len(data)
	if !p.i.shouldSave(decodedLen(data)) {
		return nil, false, nil
	}
	note, err := p.saveMedia(kind, data, mimeType)
	if err != nil {
		return nil, false, err
	}
	return mcp.TextContent{Annotated: ann, Meta: meta, Type: mcp.ContentTypeText, Text: note}, true, nil
}

// embedded handles an embedded resource by rewriting its contents and
// keeping the wrapper, so the resource URI stays visible to the agent.
func (p *pass) embedded(c mcp.EmbeddedResource) (mcp.Content, bool, error) {
	rc, changed, err := p.resource(c.Resource)
	if err != nil || !changed {
		return nil, false, err
	}
	c.Resource = rc
	return c, true, nil
}

// resource handles one resource contents entry: a saved blob becomes a
// text entry for the same URI holding the note; long text is spilled.
func (p *pass) resource(rc mcp.ResourceContents) (mcp.ResourceContents, bool, error) {
	switch v := rc.(type) {
	case mcp.TextResourceContents:
		return p.resourceText(v)
	case *mcp.TextResourceContents:
		if v != nil {
			return p.resourceText(*v)
		}
	case mcp.BlobResourceContents:
		return p.resourceBlob(v)
	case *mcp.BlobResourceContents:
		if v != nil {
			return p.resourceBlob(*v)
		}
	}
	return nil, false, nil
}

// resourceText spills a resource text over the limit: its own, for a
// resource embedded in a tool result; what the entries before it left, for
// the entries of a resources/read result, which share it.
func (p *pass) resourceText(v mcp.TextResourceContents) (mcp.ResourceContents, bool, error) {
	p.stats.OriginalSizeBytes += len(v.Text)
	limit := p.limit
	if p.shared && limit != NoLimit {
		limit = p.left
	}
	chars, over := overLimit(v.Text, limit)
	if !over {
		if p.shared && limit != NoLimit {
			p.left -= utf8.RuneCountInString(v.Text)
		}
		return nil, false, nil
	}
	text, err := p.spillText(v.Text, chars, limit)
	if err != nil {
		return nil, false, err
	}
	p.left = 0
	v.Text = text
	return v, true, nil
}

func (p *pass) resourceBlob(v mcp.BlobResourceContents) (mcp.ResourceContents, bool, error) {
	p.stats.OriginalSizeBytes += len(v.Blob)
	if !p.i.shouldSave(decodedLen(v.Blob)) {
		return nil, false, nil
	}
	note, err := p.saveMedia(kindOfMIME(v.MIMEType), v.Blob, v.MIMEType)
	if err != nil {
		return nil, false, err
	}
	// The note is plain text; keeping the blob's MIME type would mislabel it.
	return mcp.TextResourceContents{Meta: v.Meta, URI: v.URI, MIMEType: "text/plain", Text: note}, true, nil
}
