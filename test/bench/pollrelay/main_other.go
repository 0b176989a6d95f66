//go:build !linux

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "pollrelay: Linux only (it waits with ppoll(2))")
	os.Exit(69)
}
