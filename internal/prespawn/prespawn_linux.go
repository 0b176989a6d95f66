package prespawn

import (
	"os"

	"github.com/run-mcp/run-mcp/internal/supervise"
)

func init() {
	args := os.Args[1:]
	if !Wanted(args) {
		return
	}
	if t, ok := EarlyTarget(args); ok {
		supervise.StartSpare(&t)
		return
	}
	supervise.StartSpare(nil)
}
