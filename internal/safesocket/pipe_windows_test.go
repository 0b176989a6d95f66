package safesocket

import (
	"bufio"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// sessionDir is a fresh session directory under a private TMP.
func sessionDir(t *testing.T) string {
	t.Helper()
	tmp, err := os.MkdirTemp("", "safesocket")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeTree(t, tmp) })
	t.Setenv("TMP", tmp)
	t.Setenv("TEMP", tmp)
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(dir, tmp) {
		t.Fatalf("session dir %s is not under TMP %s", dir, tmp)
	}
	return dir
}

// removeTree removes a directory tree bottom-up with os.Remove: Wine 8
// fails os.RemoveAll's handle-relative deletes ("Invalid function").
func removeTree(t *testing.T, root string) {
	var paths []string
	_ = filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		paths = append(paths, p)
		return nil
	})
	for i := len(paths) - 1; i >= 0; i-- {
		if err := os.Remove(paths[i]); err != nil {
			t.Errorf("clean up: %v", err)
		}
	}
}

// underWine says whether the test runs under Wine, which keeps no access
// lists on files (it derives them from Unix modes).
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

func me(t *testing.T) string {
	t.Helper()
	sid, err := currentSID()
	if err != nil {
		t.Fatal(err)
	}
	return sid.String()
}

// aces lists the SIDs an SDDL string's DACL names, and whether it is
// protected (nothing inherited).
var ace = regexp.MustCompile(`\(([^)]*)\)`)

func daclSIDs(t *testing.T, sddl string) (sids []string, protected bool) {
	t.Helper()
	i := strings.Index(sddl, "D:")
	if i < 0 {
		t.Fatalf("no DACL in %s", sddl)
	}
	dacl := sddl[i+2:]
	if j := strings.Index(dacl, "S:"); j >= 0 {
		dacl = dacl[:j]
	}
	protected = strings.HasPrefix(dacl, "P")
	for _, m := range ace.FindAllStringSubmatch(dacl, -1) {
		f := strings.Split(m[1], ";")
		if len(f) < 6 {
			t.Fatalf("malformed ACE %q in %s", m[1], sddl)
		}
		sids = append(sids, f[5])
	}
	return sids, protected
}

// onlyMe fails unless sddl is owned by me and its DACL is protected and
// names me alone.
func onlyMe(t *testing.T, what, sddl string) {
	t.Helper()
	mine := me(t)
	if !strings.HasPrefix(sddl, "O:"+mine) {
		t.Errorf("%s: owner is not %s: %s", what, mine, sddl)
	}
	sids, protected := daclSIDs(t, sddl)
	if !protected {
		t.Errorf("%s: the DACL inherits from its parent: %s", what, sddl)
	}
	if len(sids) == 0 {
		t.Errorf("%s: the DACL grants nobody: %s", what, sddl)
	}
	for _, s := range sids {
		if s != mine {
			t.Errorf("%s: the DACL grants %s, not only %s: %s", what, s, mine, sddl)
		}
	}
}

// squatter creates the first instance of a pipe with another descriptor,
// as another program would.
func squatter(path, sddl string) (net.Listener, error) {
	sd, err := windows.SecurityDescriptorFromString(sddl)
	if err != nil {
		return nil, err
	}
	return newPipeListener(path, sd)
}

func TestTheDescriptorNamesOnlyTheUser(t *testing.T) {
	for _, inherit := range []bool{false, true} {
		sd, err := windows.SecurityDescriptorFromString(ownerOnly(me(t), inherit))
		if err != nil {
			t.Fatal(err)
		}
		onlyMe(t, "ownerOnly", sd.String())
		if strings.Contains(sd.String(), ";;;WD)") || strings.Contains(sd.String(), ";;;BU)") {
			t.Errorf("Everyone or Users is granted: %s", sd)
		}
	}
}

func TestTheSessionDirectoryIsOnlyTheUsers(t *testing.T) {
	dir := sessionDir(t)
	for _, d := range []string{dir, strings.TrimSuffix(dir, `\sessions`)} {
		sd, err := windows.GetNamedSecurityInfo(d, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
		if err != nil {
			t.Fatal(err)
		}
		if underWine() {
			// Wine reports a DACL made from the Unix mode, not the one set.
			if owner, _, _ := sd.Owner(); owner == nil || owner.String() != me(t) {
				t.Errorf("%s: owner %v, want %s", d, owner, me(t))
			}
			continue
		}
		onlyMe(t, d, sd.String())
	}
	if !strings.Contains(dir, "run-mcp-"+me(t)) {
		t.Errorf("session dir %s is not named for the user's SID", dir)
	}
}

func serveOnce(t *testing.T, ln net.Listener) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		line, _ := bufio.NewReader(c).ReadString('\n')
		_, _ = c.Write([]byte("echo " + line))
	}()
	return done
}

func TestAPipeRoundTripOnlyForTheUser(t *testing.T) {
	dir := sessionDir(t)
	path := Path(dir, "main")
	if !strings.HasPrefix(path, `\\.\pipe\run-mcp-`+me(t)+"-") || !strings.HasSuffix(path, "-main") {
		t.Fatalf("pipe name %s", path)
	}
	if Exists(path) {
		t.Fatalf("%s exists before anyone listens", path)
	}
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if !Exists(path) {
		t.Fatalf("%s does not exist while listening", path)
	}
	done := serveOnce(t, ln)
	c, err := Dial(path, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// What the kernel holds for the pipe, read through the client's handle.
	sd, err := windows.GetSecurityInfo(windows.Handle(c.(interface{ Fd() uintptr }).Fd()), windows.SE_KERNEL_OBJECT,
		windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	onlyMe(t, path, sd.String())
	if _, err := c.Write([]byte("hi\n")); err != nil {
		t.Fatal(err)
	}
	got, _ := bufio.NewReader(c).ReadString('\n')
	c.Close()
	<-done
	if got != "echo hi\n" {
		t.Fatalf("round trip: %q", got)
	}
	ln.Close()
	if Exists(path) {
		t.Errorf("%s still exists after its listener closed", path)
	}
	if _, err := Dial(path, 200*time.Millisecond); err == nil {
		t.Errorf("dialled %s after its listener closed", path)
	}
}

func TestATakenPipeNameIsRefused(t *testing.T) {
	dir := sessionDir(t)
	path := Path(dir, "main")
	// Another program took the name first, open to everyone.
	squat, err := squatter(path, "D:(A;;GA;;;WD)")
	if err != nil {
		t.Fatal(err)
	}
	defer squat.Close()
	ln, err := Listen(path)
	if err == nil {
		ln.Close()
		t.Fatalf("listened on %s, which another listener holds", path)
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "already exists") || !strings.Contains(err.Error(), "close-session") {
		t.Fatalf("want a refusal naming the pipe and what to do, got %v", err)
	}
	// And a second daemon of the same session.
	squat.Close()
	first, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if second, err := Listen(path); err == nil {
		second.Close()
		t.Fatalf("a second listener shares %s", path)
	}
}

func TestAPipeOwnedByAnotherIsNotDialled(t *testing.T) {
	dir := sessionDir(t)
	path := Path(dir, "main")
	// A pipe of the session's name owned by SYSTEM, readable by all: what
	// a squatter would offer. Creating it needs a privilege to set another
	// owner; without it there is nothing to test.
	squat, err := squatter(path, "O:SYD:(A;;GA;;;WD)")
	if err != nil {
		t.Skipf("cannot create a pipe owned by another (%v)", err)
	}
	defer squat.Close()
	done := serveOnce(t, squat)
	c, err := Dial(path, 5*time.Second)
	if err == nil {
		c.Close()
		squat.Close()
		<-done
		t.Fatalf("dialled %s, owned by SYSTEM", path)
	}
	if !strings.Contains(err.Error(), "not by you") {
		t.Errorf("want a refusal naming the owner, got %v", err)
	}
	squat.Close()
	<-done
}

func TestLongNamesGetAShortPipeName(t *testing.T) {
	long := strings.Repeat("x", 200)
	p := Path(os.TempDir(), long)
	if len(p) > maxPipeName || !strings.HasPrefix(p, `\\.\pipe\run-mcp-`) {
		t.Fatalf("pipe name %q (%d characters)", p, len(p))
	}
	if Path(`C:\a`, "main") == Path(`C:\b`, "main") {
		t.Errorf("two session directories share a pipe name")
	}
}

// The daemon relies on deadlines (a client that says nothing is dropped)
// and on Close ending a blocked Read (a hang-up cancels the request).
func TestPipeConnectionsTakeDeadlinesAndClose(t *testing.T) {
	dir := sessionDir(t)
	ln, err := Listen(Path(dir, "main"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
		close(accepted)
	}()
	c, err := Dial(Path(dir, "main"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	srv := <-accepted
	if srv == nil {
		t.Fatal("no connection accepted")
	}
	if err := c.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatalf("the pipe takes no deadline: %v", err)
	}
	var ne net.Error
	if _, err := c.Read(make([]byte, 1)); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read past its deadline: %v, want a timeout", err)
	}
	read := make(chan error, 1)
	go func() {
		_, err := srv.Read(make([]byte, 1))
		read <- err
	}()
	srv.Close()
	if err := <-read; err == nil {
		t.Fatal("a read on a closed connection succeeded")
	}
	// The client sees the hang-up.
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil || errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the client did not see the server hang up: %v", err)
	}
}

// A client that connects and hangs up before the daemon accepts (a probe,
// a cancelled command) does not stop the listener serving the next one.
func TestAHungUpClientDoesNotStopTheListener(t *testing.T) {
	dir := sessionDir(t)
	path := Path(dir, "main")
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	early, err := Dial(path, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	early.Close()
	served := make(chan error, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				served <- err
				return
			}
			line, err := bufio.NewReader(c).ReadString('\n')
			if err != nil {
				c.Close()
				continue // the client that hung up
			}
			_, err = c.Write([]byte("echo " + line))
			c.Close()
			served <- err
			return
		}
	}()
	c, err := Dial(path, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("hi\n")); err != nil {
		t.Fatal(err)
	}
	got, _ := bufio.NewReader(c).ReadString('\n')
	if err := <-served; err != nil {
		t.Fatalf("the listener stopped: %v", err)
	}
	if got != "echo hi\n" {
		t.Fatalf("round trip after a hung-up client: %q", got)
	}
}
