package validate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/run-mcp/run-mcp/actors"
)

// Status of one check.
type Status string

// Check statuses, in rising order of severity.
const (
	Pass Status = "PASS"
	Skip Status = "SKIP"
	Warn Status = "WARN"
	Fail Status = "FAIL"
)

// Check is one thing validate looked at.
type Check struct {
	Name    string `json:"name"`
	Status  Status `json:"status"`
	Message string `json:"message"`
}

// Report is the whole result.
type Report struct {
	Result          Status   `json:"result"`
	Command         string   `json:"command"`
	ServerName      string   `json:"serverName,omitempty"`
	ServerVersion   string   `json:"serverVersion,omitempty"`
	ProtocolVersion string   `json:"protocolVersion,omitempty"`
	ProtocolEra     string   `json:"protocolEra,omitempty"`
	Capabilities    []string `json:"capabilities"`
	Tools           int      `json:"tools"`
	Checks          []Check  `json:"checks"`
	Exit            string   `json:"exit,omitempty"`
	Stderr          []string `json:"stderr"`
	// Connected is false when the server never completed the handshake.
	Connected bool `json:"connected"`
}

func (r *Report) add(name string, st Status, format string, args ...any) {
	r.Checks = append(r.Checks, Check{Name: name, Status: st, Message: fmt.Sprintf(format, args...)})
}

// finish sets the overall result: FAIL if any check failed, else WARN if
// any warned, else PASS.
func (r *Report) finish() {
	r.Result = Pass
	for _, c := range r.Checks {
		if c.Status == Fail {
			r.Result = Fail
			return
		}
		if c.Status == Warn {
			r.Result = Warn
		}
	}
}

// Text renders the report for a person or an agent. Without deep only the
// checks that warned or failed are listed; with deep, every one.
func (r Report) Text(deep bool) string {
	var b strings.Builder
	// 3.0's headings: the quick form says SUCCESS or FAILED, the deep one
	// the overall status.
	if deep {
		fmt.Fprintf(&b, "Validation Result: %s\n", r.Result)
	} else {
		fmt.Fprintf(&b, "Validation Result: %s\nStatus: %s\n", r.quick(), r.Result)
	}
	fmt.Fprintf(&b, "Command: %s\n", r.Command)
	if r.ServerName != "" {
		fmt.Fprintf(&b, "Server: %s %s\n", r.ServerName, r.ServerVersion)
	}
	if r.ProtocolVersion != "" {
		fmt.Fprintf(&b, "Protocol: %s (%s)\n", r.ProtocolVersion, r.ProtocolEra)
	}
	if r.Connected {
		fmt.Fprintf(&b, "Capabilities: %s\nTools Count: %d\n", orNone(r.Capabilities), r.Tools)
	}
	counts := map[Status]int{}
	for _, c := range r.Checks {
		counts[c.Status]++
	}
	fmt.Fprintf(&b, "\nChecks Summary: %d passed, %d warned, %d failed, %d skipped\n", counts[Pass], counts[Warn], counts[Fail], counts[Skip])
	for _, c := range r.Checks {
		if deep || c.Status == Warn || c.Status == Fail {
			fmt.Fprintf(&b, "[%s] %s: %s\n", c.Status, c.Name, c.Message)
		}
	}
	if !deep {
		b.WriteString("(--deep / deep: true lists every check)\n")
	}
	if r.Exit != "" {
		fmt.Fprintf(&b, "\n%s\n", r.Exit)
	}
	b.WriteString("\n" + r.stderrHeading() + "\n")
	if len(r.Stderr) == 0 {
		b.WriteString("(the server wrote nothing to stderr)\n")
	}
	for _, l := range r.Stderr {
		b.WriteString(l + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// stderrHeading is the specification's heading where the stderr explains
// a failure (a check failed, or the server died), as every failure report
// of run-mcp says it; a server that passed gets a plain one, since nothing
// there is the cause of anything.
func (r Report) stderrHeading() string {
	if r.Result == Fail || r.Exit != "" {
		return actors.StderrHeading
	}
	return fmt.Sprintf("--- Target server stderr (%d line(s)) ---", len(r.Stderr))
}

// quick is the quick form's verdict: FAILED when a check failed (the
// server could not be reached, or a strict client would reject it).
func (r Report) quick() string {
	if r.Result == Fail {
		return "FAILED"
	}
	return "SUCCESS"
}

// reportJSON is validate --json's shape: 3.0's keys first (success,
// status, protocolEra, protocolVersion, toolCount, checks), then what run-mcp
// adds.
type reportJSON struct {
	Success         bool     `json:"success"`
	Status          Status   `json:"status"`
	ProtocolEra     string   `json:"protocolEra"`
	ProtocolVersion string   `json:"protocolVersion"`
	ToolCount       int      `json:"toolCount"`
	Checks          []Check  `json:"checks"`
	Command         string   `json:"command"`
	ServerName      string   `json:"serverName,omitempty"`
	ServerVersion   string   `json:"serverVersion,omitempty"`
	Capabilities    []string `json:"capabilities"`
	Connected       bool     `json:"connected"`
	Exit            string   `json:"exit,omitempty"`
	Stderr          []string `json:"stderr"`
}

// JSON renders the report as indented JSON. success is false for FAIL and
// for a server that never completed the handshake.
func (r Report) JSON() ([]byte, error) {
	era := strings.TrimSuffix(r.ProtocolEra, " era") // 3.0's values: legacy, modern
	return json.MarshalIndent(reportJSON{Success: r.Connected && r.Result != Fail, Status: r.Result, ProtocolEra: era,
		ProtocolVersion: r.ProtocolVersion, ToolCount: r.Tools, Checks: orEmptyChecks(r.Checks), Command: r.Command,
		ServerName: r.ServerName, ServerVersion: r.ServerVersion, Capabilities: r.Capabilities, Connected: r.Connected,
		Exit: r.Exit, Stderr: r.Stderr}, "", "  ")
}

func orEmptyChecks(c []Check) []Check {
	if c == nil {
		return []Check{}
	}
	return c
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
