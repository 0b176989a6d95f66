package demoserver

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/mark3labs/mcp-go/server"
)

// toolsFile is what --tools-file asks for: tools to add and built-ins to
// hide. It lets a test edit "the server" between two connections.
type toolsFile struct {
	add  []extra
	hide []string
}

type extra struct{ name, description string }

// readToolsFile reads path once. No path, or no file there, means no changes.
func readToolsFile(path string) (toolsFile, error) {
	if path == "" {
		return toolsFile{}, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return toolsFile{}, nil
	}
	if err != nil {
		return toolsFile{}, fmt.Errorf("opening the tools file: %w", err)
	}
	defer func() { _ = f.Close() }()
	tf, err := parseToolsFile(f)
	if err != nil {
		return toolsFile{}, fmt.Errorf("tools file %s: %w", path, err)
	}
	return tf, nil
}

// parseToolsFile reads lines `name`, `name: description` or `-name`. Blank
// lines and lines starting with '#' are skipped.
func parseToolsFile(r io.Reader) (toolsFile, error) {
	var tf toolsFile
	scanner := bufio.NewScanner(r)
	for n := 1; scanner.Scan(); n++ {
		line := strings.TrimSpace(scanner.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if hidden, ok := strings.CutPrefix(line, "-"); ok {
			tf.hide = append(tf.hide, strings.TrimSpace(hidden))
			continue
		}
		name, description, _ := strings.Cut(line, ":")
		name, description = strings.TrimSpace(name), strings.TrimSpace(description)
		if !validToolName(name) {
			return toolsFile{}, fmt.Errorf("line %d: %q is not a valid tool name", n, name)
		}
		if description == "" {
			description = defaultExtraDescription
		}
		tf.add = append(tf.add, extra{name: name, description: description})
	}
	if err := scanner.Err(); err != nil {
		return toolsFile{}, fmt.Errorf("reading: %w", err)
	}
	return tf, nil
}

// apply hides and adds tools. An added tool replaces any tool of the same
// name, so a file can also redefine a built-in's description.
func (tf toolsFile) apply(tools []server.ServerTool, makeTool func(name, description string) server.ServerTool) []server.ServerTool {
	drop := map[string]bool{}
	for _, name := range tf.hide {
		drop[name] = true
	}
	for _, e := range tf.add {
		drop[e.name] = true
	}
	out := make([]server.ServerTool, 0, len(tools)+len(tf.add))
	for _, t := range tools {
		if !drop[t.Tool.Name] {
			out = append(out, t)
		}
	}
	for _, e := range tf.add {
		out = append(out, makeTool(e.name, e.description))
	}
	return out
}
