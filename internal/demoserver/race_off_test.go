//go:build !race

package demoserver

const raceEnabled = false
