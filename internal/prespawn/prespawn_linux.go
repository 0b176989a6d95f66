package prespawn

import (
	"os"

	"github.com/run-mcp/run-mcp/internal/supervise"
)

func init() {
	if Wanted(os.Args[1:]) {
		supervise.StartSpare()
	}
}
