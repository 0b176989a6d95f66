package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/run-mcp/run-mcp/test/targets"
)

// A device is a speed device left in the product (a spin, a GOMAXPROCS
// setting, a fast path, a buffer size): the A/B rows measure the product as
// it is (on) against the same tree with the device taken out (off), in the
// same run, at idle and beside two CPU burners. It stays only if it wins in
// both.
type device struct {
	name string // what it is and where it lives
	// Off is either a change to the tree, built with go build -overlay (the
	// product has no switch for it), or environment the product honours.
	edit *edit
	env  []string
}

// edit replaces old, which must occur exactly once in file, with new.
type edit struct{ file, old, new string }

func (d device) off() string {
	if d.edit != nil {
		return fmt.Sprintf("a build of this tree with `%s` in %s replaced by `%s`", oneLine(d.edit.old), d.edit.file, oneLine(d.edit.new))
	}
	return "the same binary with " + strings.Join(d.env, " ") + " in its environment"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// variantDir is a directory name for a device's build: its name's letters
// and digits.
func variantDir(name string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return -1
	}, name)
}

// The wire's devices: the target's stderr pipe grown to a megabyte, a
// stderr batch's buffers given back for the next one, and a big answer to
// a tool call decoded as a tool result where it is read.
var (
	stderrPipe = device{name: "the target's 1 MiB stderr pipe (`growPipe` in wire/process.go)",
		edit: &edit{file: "wire/process.go", old: "\t\tgrowPipe(p.stderrR)\n", new: "\t\t_ = growPipe\n"}}
	stderrRecycle = device{name: "a stderr batch's buffers reused for the next (`feed.Recycle` in actors/session.go)",
		edit: &edit{file: "actors/session.go", old: "\tfeed.Recycle(b)\n", new: "\t_ = b\n"}}
	bigAnswer = device{name: "a big tool answer decoded as a tool result where it is read (`bigAnswer` in wire/toolanswer.go)",
		edit: &edit{file: "wire/toolanswer.go", old: "const bigAnswer = 64 << 10", new: "const bigAnswer = 1 << 62"}}
)

// buildVariant builds run-mcp (and the demo server beside it) from this
// tree into dir, with e applied through go build -overlay when e is not
// nil. missing is set, and nothing built, when e.old is not in its file
// exactly once: the device has gone or changed, and its row says so.
func buildVariant(dir string, e *edit) (bin, missing string, err error) {
	var flags []string
	if e != nil {
		root, err := targets.RepoRoot()
		if err != nil {
			return "", "", err
		}
		file := filepath.Join(root, e.file)
		src, err := os.ReadFile(file)
		if err != nil {
			return "", "", err
		}
		if n := strings.Count(string(src), e.old); n != 1 {
			return "", fmt.Sprintf("`%s` occurs %d times in %s, not once: the device has gone or changed", oneLine(e.old), n, e.file), nil
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", "", err
		}
		patched := filepath.Join(dir, filepath.Base(e.file))
		if err := os.WriteFile(patched, []byte(strings.Replace(string(src), e.old, e.new, 1)), 0o644); err != nil {
			return "", "", err
		}
		overlay, _ := json.Marshal(map[string]map[string]string{"Replace": {file: patched}})
		ov := filepath.Join(dir, "overlay.json")
		if err := os.WriteFile(ov, overlay, 0o644); err != nil {
			return "", "", err
		}
		flags = append(flags, "-overlay="+ov)
	}
	bin, err = targets.BuildBinaryFlags(dir, targets.RunMCP, flags...)
	return bin, "", err
}

// burners starts n processes that each keep a CPU busy; stop ends them.
func burners(bin string, n int) (stop func(), err error) {
	var cmds []*exec.Cmd
	var pipes []io.WriteCloser
	stop = func() {
		for _, p := range pipes {
			_ = p.Close()
		}
		for _, c := range cmds {
			_ = c.Wait()
		}
	}
	for range n {
		c := exec.Command(bin)
		in, err := c.StdinPipe()
		if err != nil {
			stop()
			return nil, err
		}
		if err := c.Start(); err != nil {
			stop()
			return nil, err
		}
		cmds, pipes = append(cmds, c), append(pipes, in)
	}
	return stop, nil
}

// conditions are the two settings every A/B is measured in.
var conditions = []struct {
	name    string
	burners int
}{{"at idle", 0}, {"beside two CPU burners", 2}}

// verdicts is one row per device: keep it only if it won in both
// conditions.
func verdicts(rows []row) []row {
	type tally struct{ won, measured int }
	var order []string
	t := map[string]*tally{}
	for _, r := range rows {
		_, name, ok := strings.Cut(r.measure, ": ")
		if !ok || (r.met != "wins" && r.met != "loses") {
			continue
		}
		if t[name] == nil {
			t[name] = &tally{}
			order = append(order, name)
		}
		t[name].measured++
		if r.met == "wins" {
			t[name].won++
		}
	}
	var out []row
	for _, name := range order {
		x := t[name]
		v := "keep: it wins at idle and beside the burners"
		if x.won < x.measured {
			v = fmt.Sprintf("delete: it wins in %d of the %d conditions", x.won, x.measured)
		}
		out = append(out, row{measure: "verdict: " + name, floor: "—", subject: v, goal: "wins in both", met: yes(x.won == x.measured)})
	}
	return out
}

// oneShotAB is a device measured on a one-shot command: what runs it
// through a build, and how its runs are scored.
type oneShotAB struct {
	dev   device
	cmd   func(bin string) func() (run, error)
	score func(rs []run) (float64, error) // higher is better
	say   func(rs []run, score float64) string
	goal  string
}

// abOneShot measures t's device on and off, interleaved, at idle and
// beside the burners.
func abOneShot(cfg config, b bins, tmp string, t oneShotAB) ([]row, error) {
	if !cfg.ab {
		return nil, nil
	}
	off, missing, err := buildVariant(filepath.Join(tmp, "ab-"+variantDir(t.dev.name)), t.dev.edit)
	if err != nil {
		return nil, err
	}
	if missing != "" {
		return []row{{measure: "A/B: " + t.dev.name, floor: "—", subject: "not measured: " + missing, goal: "—", met: "—"}}, nil
	}
	on, _, err := buildVariant(filepath.Join(tmp, "ab-base"), nil)
	if err != nil {
		return nil, err
	}
	var rows []row
	for _, cond := range conditions {
		stop, err := burners(b.burn, cond.burners)
		if err != nil {
			return nil, err
		}
		s, err := interleave(max(cfg.abRounds, 2), t.cmd(on), t.cmd(off))
		stop()
		if err != nil {
			return nil, err
		}
		son, err := t.score(s[0])
		if err != nil {
			return nil, err
		}
		soff, err := t.score(s[1])
		if err != nil {
			return nil, err
		}
		rows = append(rows, row{measure: fmt.Sprintf("A/B %s: %s", cond.name, t.dev.name),
			floor:   fmt.Sprintf("off, %s: %s", t.dev.off(), t.say(s[1], soff)),
			subject: fmt.Sprintf("on: %s (%.2f× off's)", t.say(s[0], son), son/soff),
			goal:    t.goal, met: winsIf(son > soff)})
	}
	return append(rows, verdicts(rows)...), nil
}

// stderrAB scores the stderr flood by lines per second.
func stderrAB(dev device, flood func(bin string) func() (run, error)) oneShotAB {
	return oneShotAB{dev: dev, cmd: flood, goal: "on: more lines/s",
		score: func(rs []run) (float64, error) {
			var rates []float64
			for _, r := range rs {
				rate, _, err := floodRate(r)
				if err != nil {
					return 0, err
				}
				rates = append(rates, rate)
			}
			return median(rates), nil
		},
		say: func(rs []run, score float64) string {
			var longest []time.Duration
			for _, r := range rs {
				_, l, _ := floodRate(r)
				longest = append(longest, l)
			}
			return fmt.Sprintf("%.1fM lines/s, longest write %.1f ms", score/1e6, ms(median(longest)))
		}}
}

// bigAB scores the big result by the inverse of its CPU time.
func bigAB(call func(bin string) func() (run, error)) oneShotAB {
	return oneShotAB{dev: bigAnswer, cmd: call, goal: "on: less CPU",
		score: func(rs []run) (float64, error) { return 1 / median(cpus(rs)).Seconds(), nil },
		say: func(rs []run, _ float64) string {
			return fmt.Sprintf("CPU %.3f s, whole tree %s", median(cpus(rs)).Seconds(), mib(median(trees(rs))))
		}}
}

func winsIf(ok bool) string {
	if ok {
		return "wins"
	}
	return "loses"
}
