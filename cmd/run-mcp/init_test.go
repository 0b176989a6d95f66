package main

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/run-mcp/run-mcp/test/targets"
)

// No init() does program work, in this module's code: start-up is fast
// because package inits are cheap, not because work runs in them (no
// dialling, forking, running a supervisor, printing or exiting before main).
// The simplest rule that keeps it so is none at all: a package's state is
// made by constructors, and a command's work starts in main. No package,
// test-only ones included, needs one.
func TestNoPackageHasAnInitFunction(t *testing.T) {
	root, err := targets.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	found, err := initFuncs(root)
	if err != nil {
		t.Fatal(err)
	}
	// internal/supervise (the supervisor taking over in an init) and
	// internal/prespawn (a spare supervisor started in one) are being
	// rewritten to start from main; until that lands they are the only
	// inits allowed, and a skip names them. Any other fails now.
	rewritten := func(f string) bool {
		return strings.HasPrefix(f, "internal/supervise/") || strings.HasPrefix(f, "internal/prespawn/")
	}
	others := slices.DeleteFunc(slices.Clone(found), rewritten)
	if len(others) > 0 {
		t.Fatalf("func init() in %s: no init does program work here (AGENTS.md, Conventions). Make the state in a constructor, and start the work from main", strings.Join(others, ", "))
	}
	if len(found) > 0 {
		t.Skipf("func init() remains in %s, which the rewrite of the process supervision removes; nothing else has one", strings.Join(found, ", "))
	}
}

// initFuncs lists every func init() of this module's non-test Go files,
// for every platform, as "path:line" relative to root. Nested modules
// (test/realservers), testdata and node_modules are not this module's.
func initFuncs(root string) ([]string, error) {
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules" || name == "vendor") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				rel, _ := filepath.Rel(root, path)
				found = append(found, fmt.Sprintf("%s:%d", filepath.ToSlash(rel), fset.Position(fn.Pos()).Line))
			}
		}
		return nil
	})
	sort.Strings(found)
	return found, err
}

// The budget of the package inits outside the standard library, in what
// GODEBUG=inittrace=1 reports for `run-mcp --version`: allocation, which
// is the same on every run (time is not, and no test here asserts time;
// make bench reports it, with a goal of 2 ms). Measured with mcp-go's
// server package gone: mcp-go/mcp's dependency google/jsonschema-go 79 KiB
// in 296 allocations, internal/intercept 23 KiB (253, its regular
// expressions), cli 21 KiB (263), configscan 11 KiB (98), BurntSushi/toml
// 6 KiB (30; it also reads the local time zone, about 0.3 ms), cobra and
// pflag 1.4 KiB (15), about 150 KiB in 970 allocations in all. The
// JSON Schema compiler mcp-go's server package brings (santhosh-tekuri/
// jsonschema) alone allocates 1.6 MiB in 21,000.
const (
	initBytesBudget  = 256 << 10
	initAllocsBudget = 2000
)

// mcpServer is the package that brings that compiler in.
const mcpServer = "github.com/mark3labs/mcp-go/server"

func TestPackageInitsStayWithinTheirBudget(t *testing.T) {
	bin, err := targets.BuildBinary(t.TempDir(), targets.RunMCP)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	inits, err := targets.InitTrace(ctx, nil, bin, "--version")
	if err != nil {
		t.Fatal(err)
	}
	var ours []targets.Init
	var bytes, allocs int64
	for _, in := range inits {
		if !in.Std() {
			ours = append(ours, in)
			bytes, allocs = bytes+in.Bytes, allocs+in.Allocs
		}
	}
	if bytes <= initBytesBudget && allocs <= initAllocsBudget {
		return
	}
	sort.Slice(ours, func(i, j int) bool { return ours[i].Bytes > ours[j].Bytes })
	var table strings.Builder
	for _, in := range ours {
		fmt.Fprintf(&table, "  %-55s %9d bytes %6d allocs\n", in.Pkg, in.Bytes, in.Allocs)
	}
	msg := fmt.Sprintf("the package inits outside the standard library allocate %d bytes in %d allocations before run-mcp's main; the budget is %d bytes and %d allocations. "+
		"A library whose init is expensive stays out of the run-mcp binary. By package:\n%s", bytes, allocs, initBytesBudget, initAllocsBudget, table.String())
	linked, err := linkedThrough(ctx, mcpServer)
	if err != nil {
		t.Fatal(err)
	}
	if len(linked) > 0 {
		t.Skipf("run-mcp still links %s, whose JSON Schema compiler's init is most of this, through:\n  %s\n(the engine rewrite removes it; then this test checks the budget)\n%s",
			mcpServer, strings.Join(linked, "\n  "), msg)
	}
	t.Fatal(msg)
}

// linkedThrough names how cmd/run-mcp links pkg: for each package of this
// module that imports pkg, or a package outside the module that leads to
// it, the shortest chain of imports from there. None: it is not linked.
func linkedThrough(ctx context.Context, pkg string) ([]string, error) {
	root, err := targets.RepoRoot()
	if err != nil {
		return nil, err
	}
	c := exec.CommandContext(ctx, "go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./cmd/run-mcp")
	c.Dir = root
	out, err := c.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps ./cmd/run-mcp: %w", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[f[0]] = f[1:]
	}
	if _, ok := imports[pkg]; !ok {
		return nil, nil
	}
	ours := func(p string) bool { return p == targets.ModulePath || strings.HasPrefix(p, targets.ModulePath+"/") }
	var chains []string
	for p, deps := range imports {
		if !ours(p) {
			continue
		}
		for _, d := range deps {
			if ours(d) {
				continue
			}
			if chain := shortest(imports, d, pkg); chain != nil {
				chains = append(chains, strings.Join(append([]string{p}, chain...), " → "))
			}
		}
	}
	sort.Strings(chains)
	return chains, nil
}

// shortest is the shortest chain of imports from one package to another
// (both included), or nil.
func shortest(imports map[string][]string, from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == to {
			var chain []string
			for ; p != ""; p = prev[p] {
				chain = append([]string{p}, chain...)
			}
			return chain
		}
		for _, d := range imports[p] {
			if _, seen := prev[d]; !seen {
				prev[d] = p
				queue = append(queue, d)
			}
		}
	}
	return nil
}
