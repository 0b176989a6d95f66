package intercept

import (
	"bytes"
	"net/http"
	"strings"
)

// payload is what a decoded base64 text turned out to be, by its bytes.
type payload struct {
	kind  mediaKind
	ext   string
	label string // the word of the note: "Image", "Audio", "PDF document", …
}

// magic numbers of the kinds tools return as bare base64, checked before
// http.DetectContentType (which misses gzip's MIME name and headerless MP3).
var magics = []struct {
	prefix []byte
	at     int // offset of prefix in the data
	p      payload
}{
	{[]byte("\x89PNG\r\n\x1a\n"), 0, payload{kindImage, "png", "Image"}},
	{[]byte("\xff\xd8\xff"), 0, payload{kindImage, "jpg", "Image"}},
	{[]byte("GIF87a"), 0, payload{kindImage, "gif", "Image"}},
	{[]byte("GIF89a"), 0, payload{kindImage, "gif", "Image"}},
	{[]byte("WEBP"), 8, payload{kindImage, "webp", "Image"}},
	{[]byte("WAVE"), 8, payload{kindAudio, "wav", "Audio"}},
	{[]byte("ID3"), 0, payload{kindAudio, "mp3", "Audio"}},
	{[]byte("OggS"), 0, payload{kindAudio, "ogg", "Audio"}},
	{[]byte("fLaC"), 0, payload{kindAudio, "flac", "Audio"}},
	{[]byte("%PDF-"), 0, payload{kindData, "pdf", "PDF document"}},
	{[]byte("PK\x03\x04"), 0, payload{kindData, "zip", "ZIP archive"}},
	{[]byte("\x1f\x8b"), 0, payload{kindData, "gz", "gzip archive"}},
}

// sniffPayload names decoded bytes by what they show: the magic numbers
// above, then the standard library's sniffer for other images and audio,
// and otherwise binary data saved as .bin.
func sniffPayload(data []byte) payload {
	for _, m := range magics {
		if len(data) >= m.at+len(m.prefix) && bytes.Equal(data[m.at:m.at+len(m.prefix)], m.prefix) {
			if m.at == 8 && !bytes.HasPrefix(data, []byte("RIFF")) {
				continue
			}
			return m.p
		}
	}
	if len(data) >= 2 && data[0] == 0xff && data[1]&0xe0 == 0xe0 {
		return payload{kindAudio, "mp3", "Audio"} // an MPEG audio frame without an ID3 tag
	}
	mime := http.DetectContentType(data)
	if ext, ok := extOfMIME(mime); ok {
		switch {
		case strings.HasPrefix(mime, "image/"):
			return payload{kindImage, ext, "Image"}
		case strings.HasPrefix(mime, "audio/"):
			return payload{kindAudio, ext, "Audio"}
		}
	}
	return payload{kindData, "bin", "Binary data"}
}
