package wire

import "time"

// Evidence limits: enough to diagnose, bounded against a server that prints
// its whole log to stdout.
const (
	maxEvidence     = 200
	maxEvidenceText = 2000
)

// Noise is one line on the target's stdout that was not JSON-RPC: the stray
// console.log that corrupts the protocol channel under a strict client.
type Noise struct {
	Time time.Time `json:"time"`
	Line int       `json:"line"` // position among every line the server wrote to stdout
	Text string    `json:"text"`
}

// TransportError is a message that parsed as JSON but was not valid JSON-RPC,
// or a fault of the channel itself (an oversized message).
type TransportError struct {
	Time    time.Time `json:"time"`
	Line    int       `json:"line,omitempty"`
	Message string    `json:"message"`
	// EraRule marks a message the connection's era forbids (a legacy-style
	// request or an unsolicited change notification on 2026-07-28).
	EraRule bool `json:"era_rule,omitempty"`
}

// IsEraViolation says e is a breach of the connection's era rules.
func IsEraViolation(e TransportError) bool { return e.EraRule }

// Evidence is the log of what a target did wrong on its stdout. It belongs
// to the connection's actor, which files what its channel reports.
type Evidence struct {
	noise       []Noise
	noiseTotal  int
	errors      []TransportError
	errorsTotal int
}

// File records what one Inbound reported.
func (e *Evidence) File(in Inbound) {
	for _, n := range in.Noise {
		e.AddNoise(n)
	}
	for _, t := range in.Errors {
		e.AddError(t)
	}
}

// AddNoise records one stdout line that is not JSON-RPC.
func (e *Evidence) AddNoise(n Noise) {
	n.Text = clipText(n.Text)
	e.noiseTotal++
	if len(e.noise) < maxEvidence {
		e.noise = append(e.noise, n)
	}
}

// AddError records one transport error.
func (e *Evidence) AddError(t TransportError) {
	e.errorsTotal++
	if len(e.errors) < maxEvidence {
		e.errors = append(e.errors, t)
	}
}

// EvidenceSnapshot is a copy of the log at one moment, with the totals (the
// lists keep the first maxEvidence entries).
type EvidenceSnapshot struct {
	Noise       []Noise          `json:"stdout_noise"`
	NoiseTotal  int              `json:"stdout_noise_total"`
	Errors      []TransportError `json:"transport_errors"`
	ErrorsTotal int              `json:"transport_errors_total"`
}

// Snapshot copies the log.
func (e *Evidence) Snapshot() EvidenceSnapshot {
	return EvidenceSnapshot{
		Noise: append([]Noise(nil), e.noise...), NoiseTotal: e.noiseTotal,
		Errors: append([]TransportError(nil), e.errors...), ErrorsTotal: e.errorsTotal,
	}
}

// Counts returns the totals without copying, for cheap "anything new?" checks.
func (e *Evidence) Counts() (noise, errors int) {
	return e.noiseTotal, e.errorsTotal
}
