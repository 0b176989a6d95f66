package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// sessionGoal is the warm sessioned call's goal against the minimal socket
// client: the same request line on the same socket.
const sessionGoal = 1.5

// warmSession times `run-mcp call echo --session` on a warm session
// against test/bench/sockclient sending the very request line run-mcp's
// client sends (captured first, see captureRequest) to the same daemon.
func warmSession(cfg config, b bins, env []string, tmp string, target []string) ([]row, error) {
	const name = "bench"
	callArgs := []string{b.runMCP, "call", "echo", "message=hi", "--session", name}
	s, err := openSession(env, tmp, b.runMCP, name, target)
	if err != nil {
		return nil, err
	}
	defer s.close()
	line, err := s.capture(callArgs...)
	if err != nil {
		return nil, err
	}
	call := func() (run, error) { return runCmd(env, callArgs...) }
	sock := func() (run, error) { return runCmd(env, b.sock, s.socket, line) }
	// Both print what the daemon answered; check they got the same.
	x, err := call()
	if err != nil {
		return nil, err
	}
	y, err := sock()
	if err != nil {
		return nil, err
	}
	if x.out != y.out {
		return nil, fmt.Errorf("run-mcp's client printed %q, the socket client %q, for the same request", clip(x.out), clip(y.out))
	}
	runs, err := interleave(cfg.startRounds, sock, call)
	if err != nil {
		return nil, err
	}
	f, c := median(walls(runs[0])), median(walls(runs[1]))
	r := float64(c) / float64(f)
	return []row{{measure: "warm sessioned `call` (demo-server), against a minimal client of the same socket",
		floor:   fmt.Sprintf("test/bench/sockclient sending the same request line to the same daemon: %.2f ms", ms(f)),
		subject: fmt.Sprintf("%.2f ms: %.2f× (%+.2f ms)", ms(c), r, ms(c-f)),
		goal:    fmt.Sprintf("≤ %.1f×", sessionGoal), met: yes(r <= sessionGoal)}}, nil
}

// session is a run-mcp session the report started.
type session struct {
	env          []string
	tmp, runMCP  string
	name, socket string
	target       []string
	daemonPid    int
}

// sessionDir is where run-mcp keeps its session records under the temp
// directory tmp (internal/safesocket.Dir).
func sessionDir(tmp string) string {
	return filepath.Join(tmp, fmt.Sprintf("run-mcp-%d", os.Getuid()), "sessions")
}

// openSession starts session name on target (a listing starts it) and
// reads its record: the daemon's socket and PID.
func openSession(env []string, tmp, runMCP, name string, target []string) (*session, error) {
	s := &session{env: env, tmp: tmp, runMCP: runMCP, name: name, target: target}
	return s, s.start()
}

func (s *session) start() error {
	if _, err := runCmd(s.env, append([]string{s.runMCP, "list-tools", "--session", s.name, "--"}, s.target...)...); err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(sessionDir(s.tmp), s.name+".json"))
	if err != nil {
		return fmt.Errorf("read the record of session %s: %w", s.name, err)
	}
	var rec struct {
		Socket    string `json:"socket"`
		DaemonPid int    `json:"daemon_pid"`
	}
	if err := json.Unmarshal(b, &rec); err != nil || rec.Socket == "" || rec.DaemonPid == 0 {
		return fmt.Errorf("the record of session %s names no socket or daemon (%v): %s", s.name, err, clip(string(b)))
	}
	s.socket, s.daemonPid = rec.Socket, rec.DaemonPid
	return nil
}

func (s *session) close() {
	c := exec.Command(s.runMCP, "close-session", s.name)
	c.Env = append(os.Environ(), s.env...)
	_ = c.Run()
}

// capture returns the request line that argv (a run-mcp command on this
// session) sends to the daemon. The session is closed for a moment and the
// report listens on its socket itself, answers the client with a reply
// that prints "captured", checks the client printed it, and starts the
// session again. So the floor sends exactly what run-mcp's client sends,
// however that changes.
func (s *session) capture(argv ...string) (string, error) {
	s.close()
	ln, err := net.Listen("unix", s.socket)
	if err != nil {
		return "", fmt.Errorf("listen on the session's socket to capture the request: %w", err)
	}
	got := make(chan string, 1)
	go func() {
		defer close(got)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		buf := make([]byte, 0, 4096)
		one := make([]byte, 4096)
		for !strings.Contains(string(buf), "\n") {
			n, err := c.Read(one)
			buf = append(buf, one[:n]...)
			if err != nil {
				break
			}
		}
		line, _, ok := strings.Cut(string(buf), "\n")
		if !ok {
			return
		}
		got <- line
		_, _ = c.Write([]byte(`{"code":0,"stdout":"captured\n"}` + "\n"))
	}()
	r, err := runCmd(s.env, argv...)
	_ = ln.Close() // unblocks the Accept if the client never came
	line := <-got
	_ = os.Remove(s.socket)
	if err != nil {
		return "", fmt.Errorf("capture the request line: %w", err)
	}
	if line == "" || r.out != "captured\n" {
		return "", fmt.Errorf("capture the request line: the client did not send one line and print the reply (it printed %q)", clip(r.out))
	}
	return line, s.start()
}
