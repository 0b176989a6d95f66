package wire

import (
	"syscall"
	"testing"
)

func TestExitSentence(t *testing.T) {
	for _, tc := range []struct {
		name string
		exit Exit
		want string
	}{
		{"code 1", Exit{Code: 1}, "The server exited with code 1."},
		{"code 3", Exit{Code: 3}, "The server exited with code 3."},
		{"code 0", Exit{Code: 0}, "The server exited with code 0 (it chose to stop)."},
		{"SIGSEGV", Exit{Code: -1, Signal: "SIGSEGV"}, "The server was killed by SIGSEGV."},
		{"SIGKILL", Exit{Code: -1, Signal: "SIGKILL"}, "The server was killed by SIGKILL."},
		{"stopped by us, SIGTERM", Exit{Code: -1, Signal: "SIGTERM", StoppedByUs: true}, "The server was stopped by run-mcp (SIGTERM)."},
		{"stopped by us, SIGKILL", Exit{Code: -1, Signal: "SIGKILL", StoppedByUs: true}, "The server was stopped by run-mcp (SIGKILL)."},
		{"stopped by us, exit 0", Exit{Code: 0, StoppedByUs: true}, "The server was stopped by run-mcp and exited with code 0."},
	} {
		if got := tc.exit.Sentence(); got != tc.want {
			t.Errorf("%s: Sentence() = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSignalName(t *testing.T) {
	for sig, want := range map[syscall.Signal]string{
		syscall.SIGSEGV: "SIGSEGV", syscall.SIGTERM: "SIGTERM", syscall.SIGKILL: "SIGKILL",
		syscall.SIGABRT: "SIGABRT", syscall.SIGPIPE: "SIGPIPE", syscall.Signal(63): "signal 63",
	} {
		if got := SignalName(sig); got != want {
			t.Errorf("SignalName(%d) = %q, want %q", int(sig), got, want)
		}
	}
}

func TestLauncherSentence(t *testing.T) {
	for _, c := range []struct {
		e       Exit
		serving []int
		want    string
	}{
		{Exit{Code: 0}, []int{42}, "The launcher (PID 41) exited with code 0; PID 42 still serves the connection."},
		{Exit{Code: -1, Signal: "SIGTERM"}, []int{42, 43, 44}, "The launcher (PID 41) was killed by SIGTERM; PIDs 42, 43 and 44 still serve the connection."},
		{Exit{Code: 3}, nil, "The server exited with code 3."},
	} {
		if got := c.e.LauncherSentence(41, c.serving); got != c.want {
			t.Errorf("LauncherSentence(%+v, %v) = %q, want %q", c.e, c.serving, got, c.want)
		}
	}
}
