package configscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/BurntSushi/toml"
	"github.com/tailscale/hujson"
)

// load reads and decodes one config file. A file that is not there is not an
// error: exists is false. Any other failure is, with the reason.
func load(path string, asTOML bool) (doc map[string]any, exists bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, fmt.Errorf("cannot read the file: %w; check that it is a readable regular file", err)
	}
	if asTOML {
		doc, err = decodeTOML(data)
	} else {
		doc, err = decodeJSONC(data)
	}
	return doc, true, err
}

const utf8BOM = "\xef\xbb\xbf"

// decodeJSONC parses JSON that may carry comments and trailing commas.
func decodeJSONC(data []byte) (map[string]any, error) {
	data = bytes.TrimPrefix(data, []byte(utf8BOM))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("the file is empty, which is not valid JSON; write {} or delete it")
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		return nil, jsoncError(data, err)
	}
	var doc any
	if err := json.Unmarshal(std, &doc); err != nil {
		// Standardize accepted it, so this is rare; the position is all
		// that is said, since the decoder's message can quote the text.
		var serr *json.SyntaxError
		if errors.As(err, &serr) {
			line, col := lineColumn(data, int(serr.Offset))
			return nil, fmt.Errorf("not valid JSON: line %d, column %d: a syntax error; fix the syntax there", line, col)
		}
		return nil, errors.New("not valid JSON; fix the syntax")
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the top level is %s, not an object; a config file holds one JSON object", kindOf(doc))
	}
	return obj, nil
}

// decodeTOML parses Codex's config.toml.
func decodeTOML(data []byte) (map[string]any, error) {
	data = bytes.TrimPrefix(data, []byte(utf8BOM))
	doc := map[string]any{}
	_, err := toml.Decode(string(data), &doc)
	var perr toml.ParseError
	if errors.As(err, &perr) {
		line, col := lineColumn(data, perr.Position.Start)
		return nil, fmt.Errorf("not valid TOML: line %d, column %d: %s; fix the syntax there", line, col, tomlKind(perr.Message))
	}
	if err != nil {
		return nil, errors.New("not valid TOML; fix the syntax")
	}
	return doc, nil
}

// lineColumn turns a byte offset into a 1-based line and column. The TOML
// parser's own line is off by one when the error is a line's end.
func lineColumn(data []byte, offset int) (line, col int) {
	offset = min(max(offset, 0), len(data))
	before := data[:offset]
	return 1 + bytes.Count(before, []byte("\n")), offset - bytes.LastIndexByte(before, '\n')
}

// table finds the object at a dotted key path ("mcp.servers"). found is false
// when any step is missing; a step that is not an object is an error.
func table(doc map[string]any, path []string) (obj map[string]any, found bool, err error) {
	obj = doc
	for i, key := range path {
		raw, ok := obj[key]
		if !ok || raw == nil {
			return nil, false, nil
		}
		next, ok := raw.(map[string]any)
		if !ok {
			return nil, true, fmt.Errorf("%q is %s, not an object of servers by name; nothing in it can be read",
				joinKey(path[:i+1]), kindOf(raw))
		}
		obj = next
	}
	return obj, true, nil
}

func joinKey(path []string) string {
	var b bytes.Buffer
	for i, k := range path {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(k)
	}
	return b.String()
}
