package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
)

// The README carries a summary of the last full run between these markers;
// a full make bench rewrites it from the same rows as docs/BENCHMARKS.md.
const (
	summaryBegin = "<!-- bench:summary (written by make bench; do not edit) -->"
	summaryEnd   = "<!-- /bench:summary -->"
)

// summary is the README's table: each measure with run-mcp's figure and
// whether it met its goal.
func (r *report) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Last full run: %s, %s.\n\n", r.started.Format("2006-01-02"), machineLine())
	b.WriteString("| measure | run-mcp (against its floor) | goal | met |\n| --- | --- | --- | --- |\n")
	for _, s := range r.sections {
		for _, x := range s.rows {
			// The A/B rows are summed up by their verdicts.
			if x.goal == "" || x.goal == "—" || strings.HasPrefix(x.goal, "none") || strings.HasPrefix(x.measure, "A/B ") {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", x.measure, x.subject, x.goal, x.met)
		}
	}
	return b.String()
}

// updateReadme replaces the summary between the markers of the file at
// path; a file without them is left alone.
func updateReadme(path, summary string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	i := bytes.Index(b, []byte(summaryBegin))
	j := bytes.Index(b, []byte(summaryEnd))
	if i < 0 || j < i {
		return nil
	}
	var out bytes.Buffer
	out.Write(b[:i+len(summaryBegin)])
	out.WriteString("\n")
	out.WriteString(summary)
	out.Write(b[j:])
	return os.WriteFile(path, out.Bytes(), 0o644)
}
