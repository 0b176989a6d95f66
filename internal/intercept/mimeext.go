package intercept

import (
	"mime"
	"net/http"
	"strings"
)

// extOfMIME maps the MIME types MCP servers commonly send to the extension
// a viewer expects. A switch rather than a map keeps the table immutable.
func extOfMIME(m string) (string, bool) {
	switch baseMIME(m) {
	case "image/png":
		return "png", true
	case "image/jpeg", "image/jpg":
		return "jpg", true
	case "image/gif":
		return "gif", true
	case "image/webp":
		return "webp", true
	case "image/svg+xml":
		return "svg", true
	case "image/bmp":
		return "bmp", true
	case "image/tiff":
		return "tiff", true
	case "image/avif":
		return "avif", true
	case "image/x-icon", "image/vnd.microsoft.icon":
		return "ico", true
	case "audio/wav", "audio/wave", "audio/x-wav", "audio/vnd.wave":
		return "wav", true
	case "audio/mpeg", "audio/mp3":
		return "mp3", true
	case "audio/ogg", "application/ogg":
		return "ogg", true
	case "audio/flac", "audio/x-flac":
		return "flac", true
	case "audio/aac":
		return "aac", true
	case "audio/mp4":
		return "m4a", true
	case "audio/webm", "video/webm":
		return "webm", true
	case "audio/aiff":
		return "aiff", true
	case "audio/midi":
		return "mid", true
	case "video/mp4":
		return "mp4", true
	case "application/pdf":
		return "pdf", true
	case "application/zip":
		return "zip", true
	case "application/gzip":
		return "gz", true
	case "application/json":
		return "json", true
	case "text/plain":
		return "txt", true
	case "text/html":
		return "html", true
	case "text/csv":
		return "csv", true
	}
	return "", false
}

// baseMIME lowercases a MIME type and drops parameters such as charset.
func baseMIME(m string) string {
	if parsed, _, err := mime.ParseMediaType(m); err == nil {
		return parsed
	}
	return strings.ToLower(strings.TrimSpace(m))
}

// extFor picks a file extension from the declared MIME type, then from the
// bytes themselves, and gives up with "bin".
func extFor(declared string, data []byte) string {
	if ext, ok := extOfMIME(declared); ok {
		return ext
	}
	return sniffExt(data)
}

func sniffExt(data []byte) string {
	if ext, ok := extOfMIME(http.DetectContentType(data)); ok {
		return ext
	}
	return "bin"
}
