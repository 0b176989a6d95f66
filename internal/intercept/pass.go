package intercept

import "github.com/mark3labs/mcp-go/mcp"

// pass is the state of intercepting one result: the limit in force for this
// call and the stats gathered so far.
type pass struct {
	i     *Interceptor
	limit int
	stats Stats
}

// text handles one text item: a pure-base64 text becomes a saved image,
// otherwise over-long text is spilled. changed is false when the item is
// left exactly as it was.
func (p *pass) text(c mcp.TextContent) (out mcp.Content, changed bool, err error) {
	p.stats.OriginalSizeBytes += len(c.Text)
	note, saved, err := p.saveBase64Text(c.Text)
	if err != nil {
		return nil, false, err
	}
	if saved {
		c.Text = note
		return c, true, nil
	}
	return p.truncated(c)
}

func (p *pass) truncated(c mcp.TextContent) (mcp.Content, bool, error) {
	chars, over := overLimit(c.Text, p.limit)
	if !over {
		return c, false, nil
	}
	text, err := p.spillText(c.Text, chars)
	if err != nil {
		return nil, false, err
	}
	c.Text = text
	return c, true, nil
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

func (p *pass) resourceText(v mcp.TextResourceContents) (mcp.ResourceContents, bool, error) {
	p.stats.OriginalSizeBytes += len(v.Text)
	chars, over := overLimit(v.Text, p.limit)
	if !over {
		return nil, false, nil
	}
	text, err := p.spillText(v.Text, chars)
	if err != nil {
		return nil, false, err
	}
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
