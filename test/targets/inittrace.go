package targets

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Init is one package's initialisation as GODEBUG=inittrace=1 reports it:
// the runtime prints a line per package whose inits did any work, before
// main runs.
type Init struct {
	Pkg    string
	Clock  time.Duration
	Bytes  int64
	Allocs int64
}

// Std says whether the package is the standard library's (its path's first
// element has no dot; vendor/golang.org/x/... is the standard library's
// own copy).
func (i Init) Std() bool {
	first, _, _ := strings.Cut(i.Pkg, "/")
	return !strings.Contains(first, ".")
}

var initLine = regexp.MustCompile(`(?m)^init (\S+) @[\d.]+ ms, ([\d.]+) ms clock, (\d+) bytes, (\d+) allocs$`)

// InitTrace runs bin with args, GODEBUG=inittrace=1 and env added to the
// environment, and returns the package inits it reports, in the order they
// ran.
func InitTrace(ctx context.Context, env []string, bin string, args ...string) ([]Init, error) {
	c := exec.CommandContext(ctx, bin, args...)
	c.Env = append(append(os.Environ(), env...), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %w\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	var out []Init
	for _, m := range initLine.FindAllStringSubmatch(stderr.String(), -1) {
		ms, _ := strconv.ParseFloat(m[2], 64)
		b, _ := strconv.ParseInt(m[3], 10, 64)
		n, _ := strconv.ParseInt(m[4], 10, 64)
		out = append(out, Init{Pkg: m[1], Clock: time.Duration(ms * float64(time.Millisecond)), Bytes: b, Allocs: n})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s %s printed no init lines with GODEBUG=inittrace=1:\n%s", bin, strings.Join(args, " "), stderr.String())
	}
	return out, nil
}
