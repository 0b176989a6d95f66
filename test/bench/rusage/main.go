//go:build unix

// Command rusage runs a command with this process's stdio and, once it has
// exited, writes its CPU time and peak RSS to fd 3 as "cpu_ns maxrss_kb".
// The report starts measured commands through it because on Linux a child
// inherits its forking parent's peak RSS at exec: the report process grows
// large during its own measures, this one stays small.
//
//	rusage COMMAND [ARG...]   (fd 3 open for writing)
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "rusage:", err)
		os.Exit(127)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		fmt.Fprintf(os.NewFile(3, "report"), "%d %d\n", ru.Utime.Nano()+ru.Stime.Nano(), ru.Maxrss)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
