package wire

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// ttyHelper names the environment variable that makes
// TestATargetHasItsOwnGroupAndNoTerminal the helper it runs on a terminal.
const ttyHelper = "RUN_MCP_WIRE_TTY_HELPER"

// TestATargetHasItsOwnGroupAndNoTerminal: run from a terminal (a helper in
// a session whose controlling terminal is a pseudo-terminal), a target
// leads a process group of its own in run-mcp's session, not a session of
// its own, and has no controlling terminal, whether it was started alone or
// beside another (through the exec trampoline); run-mcp keeps its own.
func TestATargetHasItsOwnGroupAndNoTerminal(t *testing.T) {
	if os.Getenv(ttyHelper) == "1" {
		reportTargetTerminal(t)
		return
	}
	master, slave, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal to run the helper on: %v", err)
	}
	defer master.Close()
	var out, errOut bytes.Buffer
	c := exec.Command(os.Args[0], "-test.run=^TestATargetHasItsOwnGroupAndNoTerminal$", "-test.count=1")
	c.Env = append(os.Environ(), ttyHelper+"=1")
	c.Stdin, c.Stdout, c.Stderr = slave, &out, &errOut
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	c.WaitDelay = patience
	err = c.Start()
	slave.Close()
	if err != nil {
		t.Fatalf("start the helper on a terminal: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err = <-done:
	case <-time.After(patience):
		_ = c.Process.Kill()
		<-done
		t.Fatal("the helper did not finish")
	}
	if err != nil {
		t.Fatalf("the helper failed: %v\nstdout: %s\nstderr: %s", err, out.String(), errOut.String())
	}
	got := map[string]int{}
	for _, f := range strings.Fields(out.String()) {
		if k, v, ok := strings.Cut(f, "="); ok {
			got[k], _ = strconv.Atoi(v)
		}
	}
	if got["helper_tty"] == 0 {
		t.Fatalf("the helper has no controlling terminal, so the test shows nothing: %s", out.String())
	}
	if got["helper_tty_after"] != got["helper_tty"] {
		t.Errorf("run-mcp's controlling terminal went from %d to %d when its supervisor gave its own up", got["helper_tty"], got["helper_tty_after"])
	}
	for _, which := range []string{"alone", "beside"} {
		pid := got[which]
		switch {
		case pid == 0:
			t.Errorf("the helper did not report the target started %s: %s", which, out.String())
		case got[which+"_pgid"] != pid:
			t.Errorf("the target started %s (PID %d) is in process group %d, want its own", which, pid, got[which+"_pgid"])
		case got[which+"_sid"] != got["helper_sid"]:
			t.Errorf("the target started %s is in session %d, want run-mcp's (%d): a session of its own is a scheduler group of its own",
				which, got[which+"_sid"], got["helper_sid"])
		case got[which+"_tty"] != 0:
			t.Errorf("the target started %s has controlling terminal %d, want none", which, got[which+"_tty"])
		}
	}
}

// reportTargetTerminal is the helper: it starts a target alone, then one
// beside it, and prints what /proc says of them and of itself.
func reportTargetTerminal(t *testing.T) {
	before := statFields(t, os.Getpid())
	sp := newSpawner(t)
	fmt.Printf("helper_sid=%d helper_tty=%d", before.sid, before.tty)
	for _, which := range []string{"alone", "beside"} {
		p := startSh(t, sp, `echo up >&2; read line`)
		waitStderr(t, p, "up")
		ids := statFields(t, p.Pid())
		fmt.Printf(" %[1]s=%[2]d %[1]s_pgid=%[3]d %[1]s_sid=%[4]d %[1]s_tty=%[5]d", which, p.Pid(), ids.pgid, ids.sid, ids.tty)
	}
	fmt.Printf(" helper_tty_after=%d\n", statFields(t, os.Getpid()).tty)
}

type procIDs struct{ pgid, sid, tty int }

// statFields reads the process group, session and controlling terminal
// (0: none) of pid from /proc/<pid>/stat.
func statFields(t *testing.T, pid int) procIDs {
	t.Helper()
	n := procStat(t, pid)
	return procIDs{pgid: n[1], sid: n[2], tty: n[3]}
}

// openPTY opens a pseudo-terminal pair.
func openPTY() (master, slave *os.File, err error) {
	fd, err := syscall.Open("/dev/ptmx", syscall.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	master = os.NewFile(uintptr(fd), "ptmx")
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		master.Close()
		return nil, nil, e
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		master.Close()
		return nil, nil, e
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	return master, slave, nil
}
