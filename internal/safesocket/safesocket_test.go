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

// A temp directory too deep for a socket path fails with the reason and
// what to do, not the kernel's bare "invalid argument".
func TestATooDeepTempDirSaysSo(t *testing.T) {
	deep := filepath.Join(t.TempDir(), strings.Repeat("d", 120))
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", deep)
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen(Path(dir, "x"))
	if err == nil {
		ln.Close()
		t.Fatal("a socket path over the limit was accepted")
	}
	for _, want := range []string{"more than a Unix socket's path can hold", "Set TMPDIR to a shorter directory", deep} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
}
