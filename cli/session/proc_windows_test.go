package session

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// A pid is judged by its process's creation time, so a pid that now names
// another process is not taken for the recorded one, and is never killed.
func TestProcessLivenessByCreationTime(t *testing.T) {
	self := os.Getpid()
	start := StartOf(self)
	if start == 0 {
		t.Fatal("no creation time for this process")
	}
	if !ProcAlive(self, start) {
		t.Fatal("this process is not alive")
	}
	if ProcAlive(self, start+1) {
		t.Fatal("another creation time was taken for this process")
	}
	if err := kill(self, start+1, 0); err != nil {
		t.Fatalf("kill with another creation time: %v", err)
	}
	// A child that has exited is gone.
	c := exec.Command(os.Args[0], "-test.run=^$")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	pid := c.Process.Pid
	cstart := StartOf(pid)
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	if ProcAlive(pid, cstart) {
		t.Errorf("exited child %d still alive", pid)
	}
}

// close-session's last step ends a live process with TerminateProcess.
func TestStopProcTerminates(t *testing.T) {
	c := exec.Command(os.Args[0], "-test.run=TestHelperSleep")
	c.Env = append(os.Environ(), "SESSION_HELPER_SLEEP=1")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = c.Wait(); close(done) }()
	pid := c.Process.Pid
	start := StartOf(pid)
	if !ProcAlive(pid, start) {
		t.Fatal("the helper is not alive")
	}
	by, err := stopProc(pid, start)
	if err != nil {
		t.Fatal(err)
	}
	<-done
	if by != "TerminateProcess" {
		t.Errorf("stopped by %q, want TerminateProcess", by)
	}
	if ProcAlive(pid, start) {
		t.Errorf("the helper survived")
	}
}

func TestHelperSleep(t *testing.T) {
	if os.Getenv("SESSION_HELPER_SLEEP") == "" {
		t.Skip("a helper process for TestStopProcTerminates")
	}
	time.Sleep(time.Hour) // until TestStopProcTerminates ends it
}
