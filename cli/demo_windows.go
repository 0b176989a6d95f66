package cli

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"unsafe"

	"golang.org/x/sys/windows"
)

const exeSuffix = ".exe"

// runDemo runs the demo server with run-mcp's own stdio and exits with its
// code: Windows cannot replace a process with another. The server is put in
// a job that is killed when run-mcp's handle to it closes, so a run-mcp that
// is stopped (TerminateProcess) takes the server with it; Ctrl-C reaches
// both, and run-mcp waits for the server's own exit.
func runDemo(bin string, args []string) error {
	signal.Ignore(os.Interrupt)
	c := exec.Command(bin, args...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := c.Start(); err != nil {
		return exitf(ExitUnavail, "could not start the demo server %s: %v. Check that it is an executable %s for this platform, or reinstall run-mcp", bin, err, demoName)
	}
	killWithUs(c.Process.Pid)
	err := c.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return &ExitError{Code: ee.ExitCode(), Quiet: true, Err: err}
	}
	return exitf(ExitUnavail, "the demo server %s: %v", bin, err)
}

// killWithUs puts pid in a job object that kills it when the job's last
// handle, run-mcp's, closes. It is best effort: where it fails (a job that
// forbids nesting), the server still stops when its stdin closes.
func killWithUs(pid int) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return
	}
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		_ = windows.CloseHandle(job)
		return
	}
	defer windows.CloseHandle(p)
	if err := windows.AssignProcessToJobObject(job, p); err != nil {
		_ = windows.CloseHandle(job)
	}
	// The job's handle stays open for the life of run-mcp: closing it is
	// what kills the server.
}
