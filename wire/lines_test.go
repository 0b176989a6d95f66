package wire

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// smallReader has a 16-byte buffer (bufio's minimum), so that a limit of a
// few dozen bytes takes the multi-chunk path that MaxMessage takes in
// production with its 64 KB buffer.
func smallReader(s string) *bufio.Reader { return bufio.NewReaderSize(strings.NewReader(s), 16) }

func TestReadMessageCapNamesExactSizeAndNextLineReads(t *testing.T) {
	big := strings.Repeat("x", 100)
	br := smallReader("first\n" + big + "\n" + `{"next":true}` + "\n")

	line, err := readMessage(br, 64)
	if err != nil || string(line) != "first\n" {
		t.Fatalf("line 1 = %q, %v", line, err)
	}
	line, err = readMessage(br, 64)
	var tl *TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("line 2: err = %v (line %d bytes), want *TooLargeError", err, len(line))
	}
	if tl.Size != 100 {
		t.Errorf("TooLargeError.Size = %d, want 100 (the line without its newline)", tl.Size)
	}
	if line != nil {
		t.Errorf("an oversized line must not be kept; got %d bytes", len(line))
	}
	line, err = readMessage(br, 64)
	if err != nil || string(line) != `{"next":true}`+"\n" {
		t.Fatalf("line after the oversized one = %q, %v", line, err)
	}
	if _, err := readMessage(br, 64); !errors.Is(err, io.EOF) {
		t.Errorf("at the end: err = %v, want EOF", err)
	}
}

func TestReadMessageUnderLimitAcrossChunks(t *testing.T) {
	msg := strings.Repeat("y", 50) // > 16-byte buffer, < limit
	br := smallReader(msg + "\n")
	line, err := readMessage(br, 64)
	if err != nil || string(line) != msg+"\n" {
		t.Fatalf("readMessage = %q, %v", line, err)
	}
}

func TestReadMessageOversizedAtEOFWithoutNewline(t *testing.T) {
	br := smallReader(strings.Repeat("z", 200))
	_, err := readMessage(br, 64)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != 200 {
		t.Fatalf("err = %v, want TooLargeError of 200 bytes", err)
	}
}

func TestReadMessageLastLineWithoutNewline(t *testing.T) {
	br := smallReader("tail")
	line, err := readMessage(br, 64)
	if string(line) != "tail" || !errors.Is(err, io.EOF) {
		t.Fatalf("readMessage = %q, %v; want the partial line and EOF", line, err)
	}
}

func TestTooLargeErrorMessage(t *testing.T) {
	msg := (&TooLargeError{Size: 71_029_068}).Error()
	for _, want := range []string{"71,029,068 bytes, over the 64 MB cap", "closed the connection", "write it to a file and return the path"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}
