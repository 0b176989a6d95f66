//go:build race

package demoserver

// raceEnabled lets the heaviest test step aside under the race detector,
// which makes 70 MB of JSON ten times slower without finding anything new.
const raceEnabled = true
