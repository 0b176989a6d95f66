package safesocket

import (
	"errors"
	"net"
	"os"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// pipeAddr is a pipe's name as a net.Addr.
type pipeAddr string

func (pipeAddr) Network() string  { return "pipe" }
func (a pipeAddr) String() string { return string(a) }

// pipeConn is one end of a connected pipe instance. The handle is
// overlapped, so os.File puts it on the runtime's I/O completion port:
// deadlines work and Close interrupts a blocked Read.
type pipeConn struct {
	*os.File
	addr pipeAddr
}

func newPipeConn(h windows.Handle, path string) *pipeConn {
	return &pipeConn{File: os.NewFile(uintptr(h), path), addr: pipeAddr(path)}
}

func (c *pipeConn) LocalAddr() net.Addr  { return c.addr }
func (c *pipeConn) RemoteAddr() net.Addr { return c.addr }

// pipeListener keeps one instance of the pipe waiting for a client: Accept
// waits for a client on it, creates the next instance, and hands over the
// connected one. The first instance is created with
// FILE_FLAG_FIRST_PIPE_INSTANCE, so the listener owns the name.
type pipeListener struct {
	path string
	name *uint16
	sa   *windows.SecurityAttributes

	quit      windows.Handle // an event Close sets to wake a waiting Accept
	closeOnce sync.Once

	mu     sync.Mutex // held by Accept while it waits; Close waits for it
	next   windows.Handle
	closed bool
}

func newPipeListener(path string, sd *windows.SECURITY_DESCRIPTOR) (*pipeListener, error) {
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	l := &pipeListener{path: path, name: name,
		sa: &windows.SecurityAttributes{Length: uint32(unsafe.Sizeof(windows.SecurityAttributes{})), SecurityDescriptor: sd}}
	l.next, err = l.instance(true)
	if err != nil {
		return nil, err
	}
	l.quit, err = windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		windows.CloseHandle(l.next)
		return nil, err
	}
	return l, nil
}

// instance creates an instance of the pipe: byte mode, local clients only,
// overlapped.
func (l *pipeListener) instance(first bool) (windows.Handle, error) {
	flags := uint32(windows.PIPE_ACCESS_DUPLEX | windows.FILE_FLAG_OVERLAPPED)
	if first {
		flags |= windows.FILE_FLAG_FIRST_PIPE_INSTANCE
	}
	return windows.CreateNamedPipe(l.name, flags,
		windows.PIPE_TYPE_BYTE|windows.PIPE_READMODE_BYTE|windows.PIPE_WAIT|windows.PIPE_REJECT_REMOTE_CLIENTS,
		windows.PIPE_UNLIMITED_INSTANCES, pipeBuffer, pipeBuffer, 0, l.sa)
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr(l.path) }

// Accept waits for a client on the waiting instance.
func (l *pipeListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, net.ErrClosed
	}
	if err := l.connect(l.next); err != nil {
		return nil, err
	}
	h := l.next
	next, err := l.instance(false)
	if err != nil {
		// The connected instance is served; the next Accept fails on the
		// invalid handle and the caller learns why then.
		l.next = windows.InvalidHandle
		return newPipeConn(h, l.path), nil
	}
	l.next = next
	return newPipeConn(h, l.path), nil
}

// connect waits for a client on h, or for Close.
func (l *pipeListener) connect(h windows.Handle) error {
	if h == windows.InvalidHandle {
		return errors.New("the named pipe has no instance to accept on (creating one failed)")
	}
	ev, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(ev)
	ov := &windows.Overlapped{HEvent: ev}
	for {
		err = windows.ConnectNamedPipe(h, ov)
		if !errors.Is(err, windows.ERROR_NO_DATA) {
			break
		}
		// A client connected and hung up before we looked (a probe, a
		// cancelled command): free the instance for the next one.
		if err := windows.DisconnectNamedPipe(h); err != nil {
			return err
		}
	}
	switch {
	case err == nil, errors.Is(err, windows.ERROR_PIPE_CONNECTED):
		return nil
	case !errors.Is(err, windows.ERROR_IO_PENDING):
		return err
	}
	got, err := windows.WaitForMultipleObjects([]windows.Handle{ev, l.quit}, false, windows.INFINITE)
	if err == nil && got == windows.WAIT_OBJECT_0 {
		var n uint32
		return windows.GetOverlappedResult(h, ov, &n, false)
	}
	// Closed (or the wait failed): cancel the connect and wait for it to
	// end, so ov is not written to after we return.
	_ = windows.CancelIoEx(h, ov)
	var n uint32
	_ = windows.GetOverlappedResult(h, ov, &n, true)
	if err != nil {
		return err
	}
	return net.ErrClosed
}

// Close stops accepting: it wakes a waiting Accept, then closes the
// waiting instance. Connections already accepted are not affected.
func (l *pipeListener) Close() error {
	l.closeOnce.Do(func() {
		_ = windows.SetEvent(l.quit)
		l.mu.Lock()
		defer l.mu.Unlock()
		l.closed = true
		if l.next != windows.InvalidHandle {
			windows.CloseHandle(l.next)
		}
		windows.CloseHandle(l.quit)
	})
	return nil
}

// waitNamedPipe waits up to d for an instance of the pipe to be free
// (kernel32's WaitNamedPipeW, which x/sys/windows does not wrap).
func waitNamedPipe(name *uint16, d time.Duration) error {
	proc := windows.NewLazySystemDLL("kernel32.dll").NewProc("WaitNamedPipeW")
	if err := proc.Find(); err != nil {
		return err
	}
	if r, _, err := proc.Call(uintptr(unsafe.Pointer(name)), uintptr(max(d.Milliseconds(), 1))); r == 0 {
		return err
	}
	return nil
}
