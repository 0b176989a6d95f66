// Command bareclient is the floor that run-mcp is measured against: the least
// work any MCP client must do to spawn a stdio server and list its tools,
// written with the Go standard library only (no MCP SDK, no run-mcp code;
// test/bench/floorenv gives its target the environment run-mcp gives one).
//
// Usage:
//
//	bareclient COMMAND [ARG...]
//
// It starts COMMAND with pipes on its stdin and stdout (its stderr is
// discarded) and the environment run-mcp gives a target (PATH, HOME, SHELL
// and USER only), then, one JSON-RPC message per line:
//
//  1. sends initialize (id 1, protocolVersion "2025-11-25", capabilities {},
//     clientInfo {name "bare", version "0"}) and reads lines until the
//     response with id 1;
//  2. sends notifications/initialized;
//  3. sends tools/list (id 2, then 3, 4, ... while the server returns a
//     nextCursor) and reads lines until each response;
//  4. prints the number of tools to stdout;
//  5. sends SIGTERM to the child (some servers, server-everything among them,
//     do not exit on stdin EOF), waits for it, and exits 0.
//
// Lines on the server's stdout that are not JSON objects are skipped, as are
// notifications, server-to-client requests and responses to other ids. Any
// failure (spawn error, JSON-RPC error, server exit, 60 s timeout) kills the
// child and exits 1 with a message on stderr.
//
// Time it against `run-mcp` doing the same thing to see run-mcp's overhead
// over the bare protocol exchange (make bench, test/bench).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/run-mcp/run-mcp/test/bench/floorenv"
)

const timeout = 60 * time.Second

// message is the subset of a JSON-RPC 2.0 message this client looks at.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: bareclient COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Env = floorenv.Target()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		fail(nil, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fail(nil, err)
	}
	if err := cmd.Start(); err != nil {
		fail(nil, err)
	}
	timer := time.AfterFunc(timeout, func() {
		fail(cmd, fmt.Errorf("timed out after %s", timeout))
	})

	n, err := listTools(stdin, bufio.NewReader(stdout))
	timer.Stop()
	if err != nil {
		fail(cmd, err)
	}
	fmt.Println(n)

	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait() // "signal: terminated" is the expected outcome
}

// listTools runs initialize, notifications/initialized and tools/list and
// returns how many tools the server has.
func listTools(w io.Writer, r *bufio.Reader) (int, error) {
	send := func(s string) error {
		_, err := io.WriteString(w, s+"\n")
		return err
	}
	if err := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bare","version":"0"}}}`); err != nil {
		return 0, err
	}
	if _, err := await(r, 1); err != nil {
		return 0, fmt.Errorf("initialize: %w", err)
	}
	if err := send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return 0, err
	}

	count, cursor := 0, ""
	for id := 2; ; id++ {
		params := "{}"
		if cursor != "" {
			c, _ := json.Marshal(cursor)
			params = `{"cursor":` + string(c) + `}`
		}
		if err := send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/list","params":` + params + `}`); err != nil {
			return 0, err
		}
		res, err := await(r, id)
		if err != nil {
			return 0, fmt.Errorf("tools/list: %w", err)
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &page); err != nil {
			return 0, fmt.Errorf("tools/list result: %w", err)
		}
		count += len(page.Tools)
		if page.NextCursor == "" || page.NextCursor == cursor {
			return count, nil
		}
		cursor = page.NextCursor
	}
}

// await reads lines until the response to id and returns its result.
func await(r *bufio.Reader, id int) (json.RawMessage, error) {
	want := []byte(strconv.Itoa(id))
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var m message
			if json.Unmarshal(line, &m) == nil && m.Method == "" && bytes.Equal(bytes.TrimSpace(m.ID), want) {
				if m.Error != nil {
					return nil, fmt.Errorf("error %d: %s", m.Error.Code, m.Error.Message)
				}
				if m.Result == nil {
					return nil, errors.New("response without result")
				}
				return m.Result, nil
			}
			// Not JSON, a notification, a server request or another id: skip.
		}
		if err != nil {
			if err == io.EOF {
				return nil, errors.New("server closed stdout")
			}
			return nil, err
		}
	}
}

func fail(cmd *exec.Cmd, err error) {
	fmt.Fprintln(os.Stderr, "bareclient:", err)
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
	os.Exit(1)
}
