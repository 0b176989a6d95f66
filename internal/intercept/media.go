package intercept

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// mediaKind decides the file prefix, the note wording and which Stats
// counter a saved payload bumps.
type mediaKind int

const (
	kindImage mediaKind = iota
	kindAudio
	kindBlob
	kindData // a base64 text that decodes to neither image nor audio
)

func (k mediaKind) prefix() string {
	return [...]string{"img", "audio", "media", "data"}[k]
}

func (k mediaKind) label() string {
	return [...]string{"Image", "Audio", "Resource", "Binary data"}[k]
}

// kindOfMIME classifies a resource blob by its declared MIME type.
func kindOfMIME(m string) mediaKind {
	switch {
	case strings.HasPrefix(baseMIME(m), "image/"):
		return kindImage
	case strings.HasPrefix(baseMIME(m), "audio/"):
		return kindAudio
	default:
		return kindBlob
	}
}

// shouldSave applies the -m threshold to a decoded size.
func (i *Interceptor) shouldSave(decodedBytes int) bool {
	switch {
	case i.mediaKB < 0:
		return false
	case i.mediaKB == 0:
		return true
	default:
		return decodedBytes > i.mediaKB*1024
	}
}

// decodedLen computes a base64 payload's decoded size without decoding it,
// so media under the threshold costs nothing.
func decodedLen(b64 string) int {
	n := 0
	for k := range len(b64) {
		switch b64[k] {
		case '=', ' ', '\t', '\r', '\n':
		default:
			n++
		}
	}
	return n * 6 / 8
}

// decodeBase64 accepts padded or unpadded, standard or URL-safe base64,
// with line breaks, because servers emit all of these.
func decodeBase64(s string) ([]byte, error) {
	s = stripSpace(s)
	var firstErr error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		data, err := enc.DecodeString(s)
		if err == nil {
			return data, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}

// stripSpace removes whitespace only when there is some, to avoid copying a
// large clean payload.
func stripSpace(s string) string {
	if !strings.ContainsAny(s, " \t\r\n") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			return -1
		}
		return r
	}, s)
}

// saveMedia writes a base64 payload to its own file and returns the note that
// replaces it. A payload that does not decode is a server bug the agent
// should see, but not at the cost of the rest of the result, so it becomes a
// note instead of an error.
func (p *pass) saveMedia(kind mediaKind, b64, mimeType string) (string, error) {
	data, err := decodeBase64(b64)
	if err != nil {
		return fmt.Sprintf("[%s not saved: its data is not valid base64 (%v)]", kind.label(), err), nil
	}
	return p.saveBytes(kind, data, extFor(mimeType, data))
}

func (p *pass) saveBytes(kind mediaKind, data []byte, ext string) (string, error) {
	return p.saveLabelled(kind, kind.label(), data, ext)
}

// saveLabelled is saveBytes with the note's word chosen by the caller.
func (p *pass) saveLabelled(kind mediaKind, label string, data []byte, ext string) (string, error) {
	f, err := p.i.createMedia(kind.prefix(), ext)
	if err != nil {
		return "", err
	}
	_, werr := f.Write(data)
	if _, err := finish(f, werr); err != nil {
		return "", err
	}
	p.recordMedia(kind, f.Name())
	return fmt.Sprintf("[%s saved to %s (%s)]", label, f.Name(), sizeKB(len(data))), nil
}

func (p *pass) recordMedia(kind mediaKind, path string) {
	switch kind {
	case kindImage:
		p.stats.ImagesSaved++
	case kindAudio:
		p.stats.AudioSaved++
	default:
		p.stats.BlobsSaved++
	}
	p.stats.Files = append(p.stats.Files, path)
}
