package configscan

import (
	"cmp"
	"slices"
	"strings"
)

// sourceOrder is the client table's order; Claude Code's local scopes rank
// together, after user scope.
func sourceOrder() []string {
	return []string{
		"claude-code (user)", claudeLocalPrefix, "claude-code (project)", "claude-code (managed)",
		"claude-desktop",
		"cursor (user)", "cursor (project)",
		"vscode (workspace)", "vscode (user)", "vscode (settings.json)",
		"cline",
		"copilot-cli",
		"codex (user)", "codex (project)",
		"gemini (user)", "gemini (project)", "gemini (system)",
		"windsurf",
		"zed (user)", "zed (project)",
		"file", "scan",
	}
}

func sourceRank(source string) int {
	order := sourceOrder()
	if strings.HasPrefix(source, claudeLocalPrefix) {
		source = claudeLocalPrefix
	}
	if i := slices.Index(order, source); i >= 0 {
		return i
	}
	return len(order)
}

// sortEntries orders by client table, then file, then source (for the
// several local scopes in one file), then name.
func sortEntries(entries []Entry) {
	slices.SortStableFunc(entries, func(a, b Entry) int {
		return cmp.Or(
			cmp.Compare(sourceRank(a.Source), sourceRank(b.Source)),
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Source, b.Source),
			cmp.Compare(a.Name, b.Name),
		)
	})
}

func sortErrors(errs []FileError) {
	slices.SortStableFunc(errs, func(a, b FileError) int {
		return cmp.Or(
			cmp.Compare(sourceRank(a.Source), sourceRank(b.Source)),
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Source, b.Source),
		)
	})
}
