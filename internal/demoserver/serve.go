package demoserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// Options are the demo server's switches. The zero value is a well-behaved
// server; every other field stages one misbehaviour for tests and demos.
type Options struct {
	// HTTP, when set, serves Streamable HTTP on this address (at /mcp)
	// instead of stdio.
	HTTP string
	// CrashAtStart, when set, makes the server report a fatal error with this
	// reason on stderr and exit 1 before reading anything.
	CrashAtStart string
	// StdoutNoise, when set, is printed on stdout once before serving, like a
	// stray console.log in a real server.
	StdoutNoise string
	// SilentHandshake makes the server read stdin and never answer. It still
	// stops at stdin EOF, unless IgnoreStdinEOF is also set.
	SilentHandshake bool
	// StderrFlood writes this many numbered lines to stderr before serving.
	StderrFlood int
	// IgnoreStdinEOF keeps the server alive after stdin closes, until the
	// context ends (SIGTERM in the command).
	IgnoreStdinEOF bool
	// ToolsFile names a file read once at start: each line `name` or
	// `name: description` adds an echo-like tool, `-name` hides a built-in
	// one. A missing file is not an error.
	ToolsFile string
	// ExitAfter, when positive, makes the server exit 0 by itself this long
	// after start.
	ExitAfter time.Duration
	// Exit ends the process; nil means os.Exit. Tests replace it, because the
	// crash tool would otherwise end the test binary. When it returns, Serve
	// stops answering and returns an error.
	Exit func(code int)
}

// Serve runs the demo server on the given streams until stdin ends (or, with
// IgnoreStdinEOF, until ctx ends), ctx is cancelled, or the server exits on
// purpose. stdout carries only protocol frames (and deliberate noise);
// stderr carries logs.
//
// Like mcp-go's own Listen, Serve may leave one goroutine blocked reading
// stdin when it returns early; it ends when stdin is closed.
func Serve(ctx context.Context, opts Options, stdin io.Reader, stdout, stderr io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d := newDemo(opts, stdout, stderr, cancel)

	if opts.CrashAtStart != "" {
		return d.crashAtStart()
	}
	extras, err := readToolsFile(opts.ToolsFile)
	if err != nil {
		return err
	}
	if err := d.startupNoise(); err != nil {
		return err
	}
	if opts.ExitAfter > 0 {
		timer := time.AfterFunc(opts.ExitAfter, d.exitOnTimer)
		defer timer.Stop()
	}
	if opts.SilentHandshake {
		return d.finish(d.serveSilently(ctx, stdin))
	}
	if opts.HTTP != "" {
		return d.serveHTTP(ctx, opts.HTTP, extras)
	}
	return d.finish(d.serveMCP(ctx, stdin, extras))
}

// crashAtStart mimics a server that dies during its own start-up.
func (d *demo) crashAtStart() error {
	d.printf("demo-server: fatal: %s\n    at startup (demoserver/serve.go)\n", d.opts.CrashAtStart)
	d.exit(1)
	return fmt.Errorf("crashed at start: %s", d.opts.CrashAtStart)
}

// startupNoise writes the stderr flood and the stdout noise line, in that
// order, before the first frame could be read.
func (d *demo) startupNoise() error {
	if n := d.opts.StderrFlood; n > 0 {
		if err := flood(d.stderr, n); err != nil {
			return fmt.Errorf("flooding stderr: %w", err)
		}
	}
	if line := d.opts.StdoutNoise; line != "" {
		if _, err := io.WriteString(d.stdout, line+"\n"); err != nil {
			return fmt.Errorf("writing stdout noise: %w", err)
		}
	}
	return nil
}

// flood writes n numbered lines through one buffer: as fast as we can, so
// that a reader that does not drain stderr blocks us quickly.
func flood(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 64*1024)
	buf := make([]byte, 0, 32)
	for i := 1; i <= n; i++ {
		buf = append(strconv.AppendInt(append(buf[:0], "flood line "...), int64(i), 10), '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// exitOnTimer is the --exit-after-ms ending: a server that decides to stop.
func (d *demo) exitOnTimer() {
	d.printf("demo-server: exiting after %s as asked (--exit-after-ms)\n", d.opts.ExitAfter)
	d.exit(0)
}

// serveSilently reads stdin and never answers: a server stuck waiting for
// something before its handshake.
func (d *demo) serveSilently(ctx context.Context, stdin io.Reader) error {
	d.printf("demo-server: waiting for a database that never comes\n")
	read := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, stdin)
		read <- err
	}()
	select {
	case <-ctx.Done():
		return nil
	case err := <-read:
		if err != nil {
			return fmt.Errorf("reading stdin: %w", err)
		}
	}
	return d.afterStdinEOF(ctx)
}

// serveMCP serves the demo catalogue with mcp-go's stdio server.
func (d *demo) serveMCP(ctx context.Context, stdin io.Reader, extras toolsFile) error {
	srv := d.newMCPServer(extras)
	stdio := server.NewStdioServer(srv)
	stdio.SetErrorLogger(log.New(d.stderr, "demo-server: mcp-go: ", 0))
	// The defaults (5 workers, a queue of 100) deadlock once calls wait on
	// the client: a full queue runs the call on the read loop, which then
	// can never read the client's answer.
	server.WithWorkerPoolSize(32)(stdio)
	server.WithQueueSize(1000)(stdio)

	err := stdio.Listen(ctx, stdin, d.stdout)
	if ctx.Err() != nil {
		return nil // asked to stop: a clean ending, whatever Listen says
	}
	if err != nil {
		return fmt.Errorf("serving stdio: %w", err)
	}
	return d.afterStdinEOF(ctx)
}

// afterStdinEOF either returns (stdin closed: the normal way for a stdio
// server to end) or, with IgnoreStdinEOF, lingers until ctx ends, like
// servers that only stop on a signal.
func (d *demo) afterStdinEOF(ctx context.Context) error {
	if !d.opts.IgnoreStdinEOF {
		return nil
	}
	d.printf("demo-server: stdin closed; staying up until SIGTERM (--ignore-stdin-eof)\n")
	<-ctx.Done()
	return nil
}

// finish turns a run that ended through a replaced Exit into an error, so a
// test sees that the server "died" rather than a clean return.
func (d *demo) finish(err error) error {
	if code, ok := d.exitCode(); ok {
		return errors.Join(err, fmt.Errorf("demo-server exited with code %d", code))
	}
	return err
}

// defaultExit is the real process exit, kept here so Options.Exit can be nil.
func defaultExit(code int) { os.Exit(code) }
