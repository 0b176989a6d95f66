//go:build unix

package safesocket

import (
	"bufio"
	"net"
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

// A temp directory too deep for a socket path still gets a session: its
// socket goes to the short directory, under a name of its own, and a
// client reaches it there.
func TestADeepTempDirStillServes(t *testing.T) {
	deep := filepath.Join(t.TempDir(), strings.Repeat("d", 120))
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", deep)
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	path := Path(dir, "x")
	if len(path) >= maxSocketPath || strings.HasPrefix(path, deep) {
		t.Fatalf("Path = %s (%d bytes), want a short path outside %s", path, len(path), deep)
	}
	if other := Path(filepath.Join(t.TempDir(), strings.Repeat("e", 120)), "x"); other == path {
		t.Fatalf("two temp directories share the socket %s", path)
	}
	roundTrip(t, path)
	top, short := shortDirs()
	for _, d := range []string{top, short} {
		info, err := os.Lstat(d)
		if err != nil || !info.IsDir() || info.Mode().Perm() != 0o700 {
			t.Errorf("the short directory %s: %v, %v; want a directory of mode 0700", d, info, err)
		}
	}
}

// roundTrip listens on path, and a client dialled to it is answered.
func roundTrip(t *testing.T, path string) {
	t.Helper()
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer Remove(path)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		line, _ := bufio.NewReader(c).ReadString('\n')
		_, _ = c.Write([]byte("echo " + line))
		c.Close()
	}()
	defer func() { ln.Close(); <-done }()
	c, err := Dial(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = c.Write([]byte("hi\n"))
	if got, _ := bufio.NewReader(c).ReadString('\n'); got != "echo hi\n" {
		t.Fatalf("round trip through %s: %q", path, got)
	}
}

// A socket in a directory someone else could have planted it in is never
// dialled, and never listened on: the refusal says how to carry on.
func TestAPlantedShortDirIsRefused(t *testing.T) {
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(open, "x.sock")
	if c, err := dialIn(path, []string{open}); err == nil || !strings.Contains(err.Error(), "other users can write") || !strings.Contains(err.Error(), "set TMPDIR") {
		if c != nil {
			c.Close()
		}
		t.Errorf("dial in a world-writable directory: %v; want a refusal saying how to carry on", err)
	}
	if ln, err := listenIn(path, []string{open}); err == nil || !strings.Contains(err.Error(), "too deep for a socket path") || !strings.Contains(err.Error(), "set TMPDIR") {
		if ln != nil {
			ln.Close()
		}
		t.Errorf("listen in a world-writable directory: %v; want a refusal saying how to carry on", err)
	}
	if _, err := os.Lstat(path); err == nil {
		t.Error("a socket was made in the refused directory")
	}
}

// A socket that no daemon listens on any more (its daemon was killed) is
// removed from the short directory once it is old; a live one, or one
// just made, stays.
func TestStaleSocketsArePruned(t *testing.T) {
	// Under /tmp, not t.TempDir(): the sockets are bound directly, and a
	// long TMPDIR leaves no room for their paths.
	dir, err := os.MkdirTemp(shortRoot, "stale")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := func(name string, live bool, age time.Duration) string {
		p := filepath.Join(dir, name)
		ln, err := net.Listen("unix", p)
		if err != nil {
			t.Fatal(err)
		}
		ln.(*net.UnixListener).SetUnlinkOnClose(false)
		if live {
			t.Cleanup(func() { ln.Close() })
		} else {
			ln.Close()
		}
		old := time.Now().Add(-age)
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dead := socket("dead.sock", false, 2*staleAfter)
	fresh := socket("fresh.sock", false, 0)
	live := socket("live.sock", true, 2*staleAfter)
	pruneStale(dir)
	if Exists(dead) {
		t.Error("the socket of a daemon that is gone was left")
	}
	for _, p := range []string{fresh, live} {
		if !Exists(p) {
			t.Errorf("%s was removed", p)
		}
	}
}
