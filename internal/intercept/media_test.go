package intercept_test

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/intercept"
)

func TestUntouchedResultIsReturnedAsIs(t *testing.T) {
	i := newInterceptor(t, intercept.Options{})
	res := &mcp.CallToolResult{
		Content: []mcp.Content{
			mcp.NewTextContent("hello"),
			mcp.NewResourceLink("file:///a.txt", "a", "", "text/plain"),
		},
		StructuredContent: map[string]any{"ok": true},
	}
	before := *res
	got, stats, err := i.ToolResult(res, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got != res {
		t.Error("a result with nothing to intercept was not returned as the same pointer")
	}
	if !reflect.DeepEqual(*res, before) {
		t.Error("the result was modified")
	}
	if stats.Truncated || stats.ImagesSaved+stats.AudioSaved+stats.ResultsSaved != 0 || len(stats.Files) != 0 {
		t.Errorf("stats = %+v, want nothing saved", stats)
	}
	if stats.OriginalSizeBytes != len("hello") {
		t.Errorf("OriginalSizeBytes = %d, want %d", stats.OriginalSizeBytes, len("hello"))
	}
	if names := dirNames(t, i.OutDir()); len(names) != 0 {
		t.Errorf("files written for an untouched result: %v", names)
	}
}

func TestImageIsSavedAndReplacedByNote(t *testing.T) {
	i := newInterceptor(t, intercept.Options{})
	png := fakePNG(24 * 1024)
	meta := &mcp.Meta{AdditionalFields: map[string]any{"k": "v"}}
	res := &mcp.CallToolResult{
		Result:            mcp.Result{Meta: meta},
		Content:           []mcp.Content{mcp.NewTextContent("screenshot:"), mcp.NewImageContent(b64(png), "image/png")},
		StructuredContent: map[string]any{"w": 10},
		IsError:           true,
	}
	got, stats, err := i.ToolResult(res, 0)
	if err != nil {
		t.Fatal(err)
	}
	note := textOf(t, got.Content[1])
	path := savedPath(t, note, "Image", "img", "png")
	if !strings.HasSuffix(note, "(24KB)]") {
		t.Errorf("note %q should report 24KB", note)
	}
	if !bytes.Equal(readFile(t, path), png) {
		t.Error("saved file does not hold the decoded image")
	}
	if textOf(t, got.Content[0]) != "screenshot:" {
		t.Error("the text item next to the image changed")
	}
	if _, still := res.Content[1].(mcp.ImageContent); !still {
		t.Error("the caller's result was modified")
	}
	if got.Meta != meta || !got.IsError || !reflect.DeepEqual(got.StructuredContent, res.StructuredContent) {
		t.Error("_meta, isError or structuredContent were not kept")
	}
	want := intercept.Stats{ImagesSaved: 1, OriginalSizeBytes: len("screenshot:") + len(b64(png)), Files: []string{path}}
	if !reflect.DeepEqual(stats, want) {
		t.Errorf("stats = %+v, want %+v", stats, want)
	}
}

func TestAudioIsSavedWithExtensionFromMIME(t *testing.T) {
	for _, tc := range []struct{ mime, ext string }{{"audio/wav", "wav"}, {"audio/mpeg", "mp3"}, {"audio/ogg", "ogg"}, {"audio/x-unknown", "bin"}} {
		t.Run(tc.mime, func(t *testing.T) {
			i := newInterceptor(t, intercept.Options{})
			data := bytes.Repeat([]byte{1, 2, 3}, 4096)
			res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewAudioContent(b64(data), tc.mime)}}
			got, stats, err := i.ToolResult(res, 0)
			if err != nil {
				t.Fatal(err)
			}
			path := savedPath(t, textOf(t, got.Content[0]), "Audio", "audio", tc.ext)
			if !bytes.Equal(readFile(t, path), data) || stats.AudioSaved != 1 {
				t.Errorf("audio not saved intact (stats %+v)", stats)
			}
		})
	}
}

func TestMediaThreshold(t *testing.T) {
	for _, tc := range []struct {
		thresholdKB, sizeKB int
		saved               bool
	}{
		{0, 0, true}, // 0 = always save, even tiny images
		{0, 500, true},
		{100, 50, false},
		{100, 100, false}, // at the threshold is not over it
		{100, 101, true},
		{-1, 5000, false}, // -1 = keep inline
	} {
		t.Run(fmt.Sprintf("m=%d size=%dKB", tc.thresholdKB, tc.sizeKB), func(t *testing.T) {
			i := newInterceptor(t, intercept.Options{MediaThresholdKB: tc.thresholdKB})
			res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent(b64(fakePNG(max(tc.sizeKB*1024, len(pngMagic)))), "image/png")}}
			got, stats, err := i.ToolResult(res, 0)
			if err != nil {
				t.Fatal(err)
			}
			if saved := got != res; saved != tc.saved {
				t.Errorf("saved = %v, want %v", saved, tc.saved)
			}
			if (stats.ImagesSaved == 1) != tc.saved {
				t.Errorf("ImagesSaved = %d", stats.ImagesSaved)
			}
		})
	}
}

func TestInvalidBase64ImageBecomesNote(t *testing.T) {
	i := newInterceptor(t, intercept.Options{})
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent("not base64 at all!!", "image/png")}}
	got, stats, err := i.ToolResult(res, 0)
	if err != nil {
		t.Fatal(err)
	}
	note := textOf(t, got.Content[0])
	if !strings.HasPrefix(note, "[Image not saved: its data is not valid base64 (") {
		t.Errorf("note = %q", note)
	}
	if stats.ImagesSaved != 0 || len(dirNames(t, i.OutDir())) != 0 {
		t.Error("an undecodable image was counted or written")
	}
}

// A text item that is nothing but base64 is saved whatever it decodes to,
// named by what its bytes show.
func TestBase64TextIsSavedByWhatItDecodesTo(t *testing.T) {
	wrapped := func(s string) string { // 76-char lines as base64 tools emit
		var b strings.Builder
		for len(s) > 76 {
			b.WriteString(s[:76] + " \r\n")
			s = s[76:]
		}
		return b.String() + s + "\n"
	}
	png := fakePNG(3000)
	body := make([]byte, 3000) // every byte value, as encoded binary has
	for k := range body {
		body[k] = byte(k*37 + 11)
	}
	with := func(magic string) []byte { return append([]byte(magic), body...) }
	for _, tc := range []struct {
		name, text, label, prefix, ext string
		images, audio, blobs           int
	}{
		{"png one line", b64(png), "Image", "img", "png", 1, 0, 0},
		{"png wrapped", wrapped(b64(png)), "Image", "img", "png", 1, 0, 0},
		{"jpeg", b64(with("\xff\xd8\xff\xe0")), "Image", "img", "jpg", 1, 0, 0},
		{"gif", b64(with("GIF89a")), "Image", "img", "gif", 1, 0, 0},
		{"webp", b64(with("RIFF\x00\x00\x00\x00WEBPVP8 ")), "Image", "img", "webp", 1, 0, 0},
		{"wav", b64(with("RIFF\x00\x00\x00\x00WAVEfmt ")), "Audio", "audio", "wav", 0, 1, 0},
		{"mp3 with ID3", b64(with("ID3\x04")), "Audio", "audio", "mp3", 0, 1, 0},
		{"mp3 frame", b64(with("\xff\xfb\x90")), "Audio", "audio", "mp3", 0, 1, 0},
		{"ogg", b64(with("OggS")), "Audio", "audio", "ogg", 0, 1, 0},
		{"pdf", b64(with("%PDF-1.7\n")), "PDF document", "data", "pdf", 0, 0, 1},
		{"zip", b64(with("PK\x03\x04")), "ZIP archive", "data", "zip", 0, 0, 1},
		{"gzip", b64(with("\x1f\x8b\x08")), "gzip archive", "data", "gz", 0, 0, 1},
		{"unknown bytes", b64(body), "Binary data", "data", "bin", 0, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := newInterceptor(t, intercept.Options{})
			res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(tc.text)}}
			got, stats, err := i.ToolResult(res, 0)
			if err != nil {
				t.Fatal(err)
			}
			path := savedPath(t, textOf(t, got.Content[0]), tc.label, tc.prefix, tc.ext)
			if len(readFile(t, path)) == 0 {
				t.Errorf("%s is empty", path)
			}
			if stats.ImagesSaved != tc.images || stats.AudioSaved != tc.audio || stats.BlobsSaved != tc.blobs {
				t.Errorf("stats = %+v, want images %d, audio %d, blobs %d", stats, tc.images, tc.audio, tc.blobs)
			}
		})
	}
}

func TestTextThatIsNotBase64StaysText(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"short base64", b64(fakePNG(600))}, // under 1000 chars
		{"prose", strings.Repeat("the quick brown fox ", 100)},
		{"space inside a line", b64(fakePNG(1000))[:700] + " " + b64(fakePNG(1000))[700:]},
		{"padding in the middle", b64(fakePNG(1000)) + "=" + b64(fakePNG(1000))},
		{"digits", strings.Repeat("0123456789", 200)},
		{"hex dump", strings.Repeat("deadbeef0123456789abcdef", 100)},
		{"one letter", strings.Repeat("a", 2000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := newInterceptor(t, intercept.Options{})
			res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(tc.text)}}
			got, _, err := i.ToolResult(res, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got != res {
				t.Errorf("text was rewritten to %q", textOf(t, got.Content[0]))
			}
		})
	}
}

func TestBase64TextKeptInlineWhenMediaIsKeptInline(t *testing.T) {
	i := newInterceptor(t, intercept.Options{MediaThresholdKB: -1})
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(b64(fakePNG(3000)))}}
	got, _, err := i.ToolResult(res, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got != res {
		t.Error("base64 text was saved although -m -1 keeps media inline")
	}
}
