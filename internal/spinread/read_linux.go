package spinread

import (
	"io"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// Tries says a Reader here tries a pipe before it parks.
const Tries = true

// read reads once into p: at once if the file has data, else by trying it
// while a window is open and the budget is had, else by parking.
func (r *Reader) read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if r.budget == nil {
		return r.f.Read(p)
	}
	rc, err := r.f.SyscallConn()
	if err != nil {
		return r.f.Read(p)
	}
	var n int
	var errno syscall.Errno
	cerr := rc.Read(func(fd uintptr) bool {
		r.parked.Store(false)
		for {
			if n, errno = rawRead(fd, p); errno != syscall.EAGAIN {
				r.fulfilled()
				return true
			}
			if r.try(fd, p, &n, &errno) {
				return true
			}
			r.parked.Store(true)
			if !r.due() || r.budget.held.Load() || r.overdue() {
				return false // park (an overdue wait ends at once)
			}
			// A window opened after try looked, and Expect, seeing the
			// read not parked yet, did not wake it: look again.
			r.parked.Store(false)
		}
	})
	switch {
	case cerr != nil:
		return 0, cerr
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// try reads p again and again while a window is open and the budget is had.
// It is true when a read found data, the end of the file or an error.
func (r *Reader) try(fd uintptr, p []byte, n *int, errno *syscall.Errno) bool {
	if !r.due() || !r.budget.acquire() {
		return false
	}
	defer r.budget.release()
	for r.due() && !r.overdue() {
		// On the one P a Budget tries on (NewBudget), this lets whatever
		// else is ready run first, and wakes no thread.
		runtime.Gosched()
		if *n, *errno = rawRead(fd, p); *errno != syscall.EAGAIN {
			r.fulfilled()
			return true
		}
	}
	return false
}

// fulfilled closes the window: what was due came (or the end of the file),
// and trying on for the next message would hold the budget from the reader
// that message is due on.
func (r *Reader) fulfilled() {
	if r.until.Load() != 0 {
		r.until.Store(0)
	}
}

// rawRead is read(2) on a non-blocking descriptor, without the runtime's
// system-call bookkeeping: it never blocks, and the bookkeeping wakes the
// runtime's monitor thread, which costs more than the call. EINTR is tried
// again.
func rawRead(fd uintptr, p []byte) (int, syscall.Errno) {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return 0, e
		}
		return int(n), 0
	}
}

// nonBlocking says f's descriptor is in non-blocking mode, so a raw read
// of it returns at once.
func nonBlocking(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var flags uintptr
	var errno syscall.Errno
	if rc.Control(func(fd uintptr) {
		flags, _, errno = syscall.RawSyscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	}) != nil || errno != 0 {
		return false
	}
	return flags&syscall.O_NONBLOCK != 0
}
