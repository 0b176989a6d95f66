//go:build unix

package safesocket

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestOwnerOnlyAndRoundTrip(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(dir)
	if info.Mode().Perm() != 0o700 {
		t.Fatalf("session dir mode %v, want 0700", info.Mode().Perm())
	}
	ln, err := Listen(Path(dir, "main"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		line, _ := bufio.NewReader(c).ReadString('\n')
		c.Write([]byte("echo " + line))
		c.Close()
	}()
	c, err := Dial(Path(dir, "main"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("hi\n"))
	got, _ := bufio.NewReader(c).ReadString('\n')
	c.Close()
	ln.Close()
	<-done
	if got != "echo hi\n" {
		t.Fatalf("round trip: %q", got)
	}
	sock, _ := os.Stat(Path(dir, "main"))
	if sock != nil && sock.Mode().Perm()&0o077 != 0 {
		t.Fatalf("socket mode %v", sock.Mode().Perm())
	}
}

func TestLongNamesGetAShortPath(t *testing.T) {
	long := strings.Repeat("x", 200)
	p := Path(filepath.Join("/tmp", "run-mcp-0", "sessions"), long)
	if len(p) >= maxSocketPath || !strings.HasSuffix(p, ".sock") {
		t.Fatalf("path %q (%d bytes)", p, len(p))
	}
}
