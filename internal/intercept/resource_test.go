package intercept_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/intercept"
)

func TestEmbeddedResourceBlobsAreSaved(t *testing.T) {
	for _, tc := range []struct{ mime, kind, prefix, ext string }{
		{"image/png", "Image", "img", "png"},
		{"audio/wav", "Audio", "audio", "wav"},
		{"application/pdf", "Resource", "media", "pdf"},
	} {
		t.Run(tc.mime, func(t *testing.T) {
			i := newInterceptor(t, intercept.Options{})
			data := fakePNG(2048)
			blob := mcp.BlobResourceContents{URI: "file:///x", MIMEType: tc.mime, Blob: b64(data)}
			res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewEmbeddedResource(blob)}}
			got, stats, err := i.ToolResult(res, 0)
			if err != nil {
				t.Fatal(err)
			}
			er, ok := got.Content[0].(mcp.EmbeddedResource)
			if !ok {
				t.Fatalf("content is %T, want the embedded resource kept", got.Content[0])
			}
			trc, ok := er.Resource.(mcp.TextResourceContents)
			if !ok || trc.URI != "file:///x" || trc.MIMEType != "text/plain" {
				t.Fatalf("resource = %+v, want text contents for the same URI", er.Resource)
			}
			path := savedPath(t, trc.Text, tc.kind, tc.prefix, tc.ext)
			if !bytes.Equal(readFile(t, path), data) {
				t.Error("saved blob differs")
			}
			if stats.ImagesSaved+stats.AudioSaved+stats.BlobsSaved != 1 {
				t.Errorf("stats = %+v", stats)
			}
			if _, still := res.Content[0].(mcp.EmbeddedResource).Resource.(mcp.BlobResourceContents); !still {
				t.Error("the caller's embedded resource was modified")
			}
		})
	}
}

func TestEmbeddedLongTextResourceIsSpilled(t *testing.T) {
	i := newInterceptor(t, intercept.Options{MaxText: 10})
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewEmbeddedResource(
		mcp.TextResourceContents{URI: "file:///log", Text: strings.Repeat("line\n", 10)})}}
	got, stats, err := i.ToolResult(res, 0)
	if err != nil {
		t.Fatal(err)
	}
	trc := got.Content[0].(mcp.EmbeddedResource).Resource.(mcp.TextResourceContents)
	if !strings.HasPrefix(trc.Text, "line\nline\n\n\n[truncated at 10 of 50 chars.") || trc.URI != "file:///log" {
		t.Errorf("resource = %+v", trc)
	}
	if !stats.Truncated {
		t.Error("Truncated not reported")
	}
}

func TestResourceResult(t *testing.T) {
	i := newInterceptor(t, intercept.Options{MaxText: 10})
	small := &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{mcp.TextResourceContents{URI: "a", Text: "short"}}}
	if got, _, err := i.ResourceResult(small, 0); err != nil || got != small {
		t.Errorf("untouched resource result not returned as is (err %v)", err)
	}

	res := &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
		mcp.TextResourceContents{URI: "a", Text: "short"},
		mcp.TextResourceContents{URI: "b", Text: strings.Repeat("z", 40)},
		mcp.BlobResourceContents{URI: "c", MIMEType: "image/png", Blob: b64(fakePNG(100))},
	}}
	got, stats, err := i.ResourceResult(res, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Contents[0], res.Contents[0]) {
		t.Error("short text contents changed")
	}
	// The entries share the limit: "short" left 5 of the 10 characters.
	if b := got.Contents[1].(mcp.TextResourceContents); !strings.HasPrefix(b.Text, "zzzzz\n\n[truncated at 5 of 40 chars.") ||
		!strings.Contains(b.Text, `read_result id="r1" offset=5`) || b.URI != "b" {
		t.Errorf("long text contents = %+v", b)
	}
	c := got.Contents[2].(mcp.TextResourceContents)
	savedPath(t, c.Text, "Image", "img", "png")
	if stats.ResultsSaved != 1 || stats.ImagesSaved != 1 || len(stats.Files) != 2 {
		t.Errorf("stats = %+v", stats)
	}
	if _, still := res.Contents[2].(mcp.BlobResourceContents); !still {
		t.Error("the caller's result was modified")
	}
}
