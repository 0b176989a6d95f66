// Command gendocs writes run-mcp's shell completions and man pages, generated
// from the cobra command tree, for release archives:
//
//	go run ./internal/gendocs [-version 0.4.0] [-date 2026-12-01T10:00:00Z] <dir>
//
// It writes <dir>/completions/run-mcp.{bash,zsh,fish} and <dir>/man/*.1 (one
// page per command, run-mcp.1 first). GoReleaser runs it before building.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"

	"github.com/run-mcp/run-mcp/cli"
)

func main() {
	version := flag.String("version", "", "the version the man pages name (default: the VERSION file)")
	date := flag.String("date", "", "the date the man pages carry, RFC 3339 (default: now); GoReleaser passes the commit date")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./internal/gendocs [-version X.Y.Z] [-date RFC3339] <output dir>")
		os.Exit(64)
	}
	when := time.Now().UTC()
	if *date != "" {
		t, err := time.Parse(time.RFC3339, *date)
		if err != nil {
			fmt.Fprintf(os.Stderr, "gendocs: -date %q is not an RFC 3339 date (2026-12-01T10:00:00Z): %v\n", *date, err)
			os.Exit(64)
		}
		when = t
	}
	if err := run(flag.Arg(0), *version, when); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

func run(out, version string, date time.Time) error {
	if version == "" {
		b, err := os.ReadFile("VERSION")
		if err != nil {
			return fmt.Errorf("no -version given and the VERSION file cannot be read (run from the repository root): %w", err)
		}
		version = strings.TrimSpace(string(b))
	}
	root := cli.NewRoot(version, nil)
	root.DisableAutoGenTag = true // keep the pages the same from one build to the next

	comp := filepath.Join(out, "completions")
	if err := os.MkdirAll(comp, 0o755); err != nil {
		return err
	}
	for name, gen := range map[string]func(*cobra.Command, string) error{
		"run-mcp.bash": func(c *cobra.Command, f string) error { return c.GenBashCompletionFileV2(f, true) },
		"run-mcp.zsh":  (*cobra.Command).GenZshCompletionFile,
		"run-mcp.fish": func(c *cobra.Command, f string) error { return c.GenFishCompletionFile(f, true) },
	} {
		if err := gen(root, filepath.Join(comp, name)); err != nil {
			return fmt.Errorf("write the %s completion: %w", name, err)
		}
	}

	man := filepath.Join(out, "man")
	if err := os.MkdirAll(man, 0o755); err != nil {
		return err
	}
	manSafe(root)
	header := &doc.GenManHeader{Title: "RUN-MCP", Section: "1", Source: "run-mcp " + version, Manual: "run-mcp manual", Date: &date}
	if err := doc.GenManTree(root, header, man); err != nil {
		return fmt.Errorf("write the man pages: %w", err)
	}
	return nil
}

// manSafe rewrites the help texts of the tree for the man pages, which
// cobra renders through Markdown: a placeholder such as <subcommand> would
// be taken for an HTML tag and vanish, and an indented example line would
// be run into the paragraph before it. Placeholders are escaped and example
// lines (indented by two spaces) become code blocks. The tree is a fresh
// one, made for these pages alone.
func manSafe(c *cobra.Command) {
	c.Long = manText(c.Long)
	c.Example = manText(c.Example)
	for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
		fs.VisitAll(func(f *pflag.Flag) {
			f.Usage = escapeAngles(f.Usage)
			f.DefValue = escapeAngles(f.DefValue)
		})
	}
	for _, sub := range c.Commands() {
		manSafe(sub)
	}
}

func manText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "  ") {
			lines[i] = "    " + l // a Markdown code block: kept as written
			continue
		}
		lines[i] = escapeAngles(l)
	}
	return strings.Join(lines, "\n")
}

func escapeAngles(s string) string {
	return strings.NewReplacer("<", "\\<", ">", "\\>").Replace(s)
}
