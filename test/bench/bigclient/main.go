// Command bigclient is the floor of the big-result measure: the least any
// client does to call a tool whose answer is one huge text and keep it, in
// the standard library alone. It spawns COMMAND, initializes, calls
// big_text with chars=N, reads the response line, decodes it once into
// typed values, writes the text to a file in DIR and prints a short JSON
// result naming the file; then SIGTERM to the target and exit.
//
//	bigclient N DIR COMMAND [ARG...]
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/run-mcp/run-mcp/test/bench/floorenv"
)

type response struct {
	ID     int `json:"id"`
	Result *struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: bigclient N DIR COMMAND [ARG...]")
		os.Exit(2)
	}
	chars, err := strconv.Atoi(os.Args[1])
	check(err)
	cmd := exec.Command(os.Args[3], os.Args[4:]...)
	cmd.Env = floorenv.Target()
	in, err := cmd.StdinPipe()
	check(err)
	out, err := cmd.StdoutPipe()
	check(err)
	check(cmd.Start())
	br := bufio.NewReaderSize(out, 64<<10)
	send := func(s string) { _, err := io.WriteString(in, s+"\n"); check(err) }
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bare","version":"0"}}}`)
	await(br, 1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big_text","arguments":{"chars":` + strconv.Itoa(chars) + `}}}`)
	r := await(br, 2)
	if r.Result == nil || len(r.Result.Content) == 0 {
		check(fmt.Errorf("no content in the result"))
	}
	path := filepath.Join(os.Args[2], "bigclient_result.txt")
	check(os.WriteFile(path, []byte(r.Result.Content[0].Text), 0o600))
	b, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text",
		"text": fmt.Sprintf("%d characters saved to %s", len(r.Result.Content[0].Text), path)}}})
	fmt.Println(string(b))
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
}

func await(br *bufio.Reader, id int) response {
	for {
		line, err := br.ReadBytes('\n')
		var r response
		if json.Unmarshal(line, &r) == nil && r.ID == id {
			if r.Error != nil {
				check(fmt.Errorf("error: %s", r.Error.Message))
			}
			return r
		}
		check(err)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bigclient:", err)
		os.Exit(1)
	}
}
