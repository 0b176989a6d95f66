package layout

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/test/targets"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// platforms are the systems whose imports the graph covers: a file for one
// of them alone may import a package of ours the others do not.
var platforms = []string{"linux", "darwin", "windows"}

// Every package of the module is in AGENTS.md's Layout: listed, or named
// in the description of the entry it sits under (test/fixtures/ names its
// servers); and every directory the Layout lists exists.
func TestTheLayoutNamesEveryPackage(t *testing.T) {
	root := repoRoot(t)
	entries := layout(t, section(t, root, "## Layout"))
	code := goList(t, root)
	var missing []string
	for _, pkg := range code.packages() {
		if !entries.covers(pkg) {
			missing = append(missing, pkg)
		}
	}
	if len(missing) > 0 {
		t.Errorf("AGENTS.md's Layout does not name these packages; list each (\"dir/   what it owns\") or name it in the description of the entry it sits under:\n  %s",
			strings.Join(missing, "\n  "))
	}
	for _, e := range entries {
		if info, err := os.Stat(filepath.Join(root, e.dir)); err != nil || !info.IsDir() {
			t.Errorf("AGENTS.md's Layout lists %s/, which is not a directory of the repository", e.dir)
		}
	}
}

// AGENTS.md's Dependency direction graph is the imports between this
// module's packages, no more and no less.
func TestTheDependencyGraphIsTheImports(t *testing.T) {
	root := repoRoot(t)
	graph := edges(t, section(t, root, "## Dependency direction"))
	code := goList(t, root)
	var missing, absent []string
	for e := range code.edges {
		if !graph[e] {
			missing = append(missing, e.String())
		}
	}
	for e := range graph {
		if !code.edges[e] {
			absent = append(absent, e.String())
		}
		for _, p := range []string{e.from, e.to} {
			if !code.has[p] {
				t.Errorf("AGENTS.md's graph names %s, which is not a package of this module", p)
			}
		}
	}
	sort.Strings(missing)
	sort.Strings(absent)
	if len(missing) > 0 {
		t.Errorf("these imports are in the code but not in AGENTS.md's Dependency direction graph (add them, or remove the import if it points the wrong way):\n  %s",
			strings.Join(missing, "\n  "))
	}
	if len(absent) > 0 {
		t.Errorf("AGENTS.md's Dependency direction graph has these imports, which no package makes (linux, darwin, windows):\n  %s", strings.Join(absent, "\n  "))
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := targets.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// section is the first fenced block after the heading in AGENTS.md.
func section(t *testing.T, root, heading string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	state := 0 // 0: before the heading, 1: before the fence, 2: in it
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		l := sc.Text()
		switch {
		case state == 0 && l == heading:
			state = 1
		case state == 1 && strings.HasPrefix(l, "## "):
			t.Fatalf("AGENTS.md's %q section has no fenced block", heading)
		case state == 1 && strings.HasPrefix(l, "```"):
			state = 2
		case state == 2 && strings.HasPrefix(l, "```"):
			return lines
		case state == 2:
			lines = append(lines, l)
		}
	}
	t.Fatalf("AGENTS.md has no %q section with a fenced block", heading)
	return nil
}

// entry is one directory of the Layout and what it says of it.
type entry struct{ dir, about string }

type entries []entry

var entryLine = regexp.MustCompile(`^( {0,6})(\S+)/(?:\s+(.*))?$`)

// layout reads the Layout block: "dir/   description" at the left margin,
// two spaces more for each level below a heading such as "internal/", and
// lines indented further continue the description.
func layout(t *testing.T, lines []string) entries {
	t.Helper()
	var out entries
	var parents []string
	for _, l := range lines {
		m := entryLine.FindStringSubmatch(l)
		if m == nil {
			if len(out) == 0 || strings.TrimSpace(l) == "" {
				t.Fatalf("AGENTS.md's Layout: %q is neither an entry (\"dir/  what\") nor the continuation of one", l)
			}
			out[len(out)-1].about += " " + strings.TrimSpace(l)
			continue
		}
		depth := len(m[1]) / 2
		if depth > len(parents) {
			t.Fatalf("AGENTS.md's Layout: %q is indented below no heading", l)
		}
		parents = append(parents[:depth], m[2])
		out = append(out, entry{dir: strings.Join(parents, "/"), about: m[3]})
	}
	return out
}

var word = regexp.MustCompile(`[A-Za-z0-9_.-]+`)

// covers says whether the Layout lists pkg's directory, or names it in the
// description of the nearest entry above it that has one.
func (es entries) covers(pkg string) bool {
	best := -1
	for i, e := range es {
		if e.dir == pkg {
			return true
		}
		if strings.HasPrefix(pkg, e.dir+"/") && e.about != "" && (best < 0 || len(e.dir) > len(es[best].dir)) {
			best = i
		}
	}
	return best >= 0 && slices.Contains(word.FindAllString(es[best].about, -1), filepath.Base(pkg))
}

// edge is one import between two packages of the module, by their paths
// relative to its root.
type edge struct{ from, to string }

func (e edge) String() string { return e.from + " → " + e.to }

// edges reads the graph: "a → b, c, internal/{d,e}", where a line that
// starts with spaces continues the one before, and a chain "a → b → c" is
// a → b and b → c.
func edges(t *testing.T, lines []string) map[edge]bool {
	t.Helper()
	var joined []string
	for _, l := range lines {
		switch {
		case strings.TrimSpace(l) == "":
		case strings.HasPrefix(l, " ") && len(joined) > 0:
			joined[len(joined)-1] += " " + strings.TrimSpace(l)
		default:
			joined = append(joined, l)
		}
	}
	out := map[edge]bool{}
	for _, l := range joined {
		segs := strings.Split(l, "→")
		if len(segs) < 2 {
			t.Fatalf("AGENTS.md's graph: %q has no →", l)
		}
		for i := 0; i+1 < len(segs); i++ {
			for _, from := range expand(t, segs[i]) {
				for _, to := range expand(t, segs[i+1]) {
					out[edge{from, to}] = true
				}
			}
		}
	}
	return out
}

// expand reads "a, b/{c,d}" as [a b/c b/d].
func expand(t *testing.T, seg string) []string {
	t.Helper()
	var out []string
	for _, item := range splitOutsideBraces(seg) {
		item = strings.TrimSpace(item)
		open := strings.IndexByte(item, '{')
		if open < 0 {
			if item == "" || strings.ContainsAny(item, "…* ") {
				t.Fatalf("AGENTS.md's graph: %q is not a package path (the graph names every package, no wildcards)", item)
			}
			out = append(out, item)
			continue
		}
		if !strings.HasSuffix(item, "}") {
			t.Fatalf("AGENTS.md's graph: %q: a brace must end the item", item)
		}
		for _, leaf := range strings.Split(item[open+1:len(item)-1], ",") {
			out = append(out, item[:open]+strings.TrimSpace(leaf))
		}
	}
	return out
}

func splitOutsideBraces(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// listing is the module's packages and the imports between them, for
// every platform in platforms.
type listing struct {
	has   map[string]bool
	edges map[edge]bool
}

func (l listing) packages() []string {
	out := make([]string, 0, len(l.has))
	for p := range l.has {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// goList asks go list for the module's non-test packages and their imports
// (test files' imports are not in .Imports), on each platform.
func goList(t *testing.T, root string) listing {
	t.Helper()
	l := listing{has: map[string]bool{}, edges: map[edge]bool{}}
	rel := func(p string) (string, bool) {
		r, ok := strings.CutPrefix(p, targets.ModulePath+"/")
		return r, ok
	}
	for _, goos := range platforms {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		c := exec.CommandContext(ctx, "go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
		c.Dir = root
		c.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
		out, err := c.Output()
		cancel()
		if err != nil {
			t.Fatalf("GOOS=%s go list ./...: %v", goos, err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			from, ok := rel(f[0])
			if !ok {
				t.Fatalf("go list: %s is not under %s", f[0], targets.ModulePath)
			}
			l.has[from] = true
			for _, imp := range f[1:] {
				if to, ok := rel(imp); ok {
					l.edges[edge{from, to}] = true
				}
			}
		}
	}
	if len(l.has) == 0 {
		t.Fatal("go list found no packages")
	}
	return l
}
