//go:build !linux

package daemon

import "errors"

func setNofile(int, uint64) (uint64, error) { return 0, errors.New("prlimit(2) is Linux only") }
