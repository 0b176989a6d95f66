package intercept

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Read returns one page of a spilled result: a header line, a newline, then
// up to length characters starting at character offset. length <= 0 or over
// the page maximum (the Interceptor's MaxText) means the maximum. Ids from
// an earlier Interceptor still work while their file is in the directory.
func (i *Interceptor) Read(id string, offset, length int) (string, error) {
	if offset < 0 {
		return "", fmt.Errorf("offset %d is negative; use 0 to read result %s from the start", offset, id)
	}
	if length <= 0 || length > i.pageMax() {
		length = i.pageMax()
	}
	entry, err := i.lookup(id)
	if err != nil {
		return "", err
	}
	text, n, total, info, err := i.readPage(id, entry, offset, length)
	if err != nil {
		return "", fmt.Errorf("reading result %s: %w", id, err)
	}
	if entry.chars < 0 { // first read of a file from an earlier session
		i.remember(id, spilled{path: entry.path, chars: total, written: info})
	}
	return pageHeader(id, offset, offset+n, total) + "\n" + text, nil
}

func pageHeader(id string, from, to, total int) string {
	if to >= total {
		return fmt.Sprintf("[result %s: chars %d–%d of %d — end of result]", id, from, to, total)
	}
	return fmt.Sprintf("[result %s: chars %d–%d of %d — more available (continue at offset %d)]", id, from, to, total, to)
}

// lookup finds a result spilled by this Interceptor or, failing that, a
// result_<id>.txt left by an earlier one in the same directory (readPage
// then checks it is a regular file of ours that no one else can write).
func (i *Interceptor) lookup(id string) (spilled, error) {
	i.mu.Lock()
	entry, ok := i.results[id]
	i.mu.Unlock()
	if ok {
		return entry, nil
	}
	name := "result_" + id + ".txt"
	if resultName().MatchString(name) { // also keeps id from naming paths outside dir
		path := filepath.Join(i.dir, name)
		if _, err := os.Lstat(path); err == nil {
			return spilled{path: path, chars: -1}, nil
		}
	}
	return spilled{}, i.unknownID(id)
}

func (i *Interceptor) unknownID(id string) error {
	forgotten := i.forgotten(id)
	i.mu.Lock()
	ids := make([]string, 0, len(i.results))
	for known := range i.results {
		ids = append(ids, known)
	}
	i.mu.Unlock()
	slices.SortFunc(ids, compareIDs)
	switch {
	case forgotten:
		return fmt.Errorf("Unknown result id %q: run-mcp no longer keeps it. It keeps only the %s most recent results it saved (and at most %s MB of their files), "+
			"and deleted this one to make room for newer ones. Call the tool again to get its result anew; the ids kept now are %s",
			id, commas(i.kept.most), commas(int(i.kept.mostBytes>>20)), strings.Join(ids, ", "))
	case len(ids) == 0:
		return fmt.Errorf("Unknown result id %q: no results have been saved in this session and %s holds no result_%s.txt (it may have been pruned); use the id from a [truncated at …] note", id, i.dir, id)
	}
	return fmt.Errorf("Unknown result id %q: known ids are %s; use the id from a [truncated at …] note", id, strings.Join(ids, ", "))
}

// compareIDs orders r2 before r10.
func compareIDs(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// readPage streams the file so a 20 MB result is never held whole in memory:
// it skips offset characters, keeps length, and counts the rest only when
// the total is not already known. It returns the page, its length in
// characters and the result's total length in characters.
// The file read is the open one that passed the checks of openResult, so
// what is checked is what is read.
func (i *Interceptor) readPage(id string, entry spilled, offset, length int) (page string, n, total int, info fs.FileInfo, err error) {
	f, info, err := i.openResult(id, entry)
	if err != nil {
		return "", 0, 0, nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64*1024)
	skipped, err := skipRunes(r, offset)
	if err != nil {
		return "", 0, 0, nil, err
	}
	if skipped < offset || (offset > 0 && atEOF(r)) {
		return "", 0, 0, nil, fmt.Errorf("offset %d is past the end: the result has %d chars; use an offset below %d", offset, skipped, skipped)
	}
	var b strings.Builder
	if n, err = copyRunes(&b, r, length); err != nil {
		return "", 0, 0, nil, err
	}
	total = entry.chars
	if total < 0 {
		rest, err := skipRunes(r, -1)
		if err != nil {
			return "", 0, 0, nil, err
		}
		total = offset + n + rest
	}
	return b.String(), n, total, info, nil
}

func atEOF(r *bufio.Reader) bool {
	_, err := r.Peek(1)
	return err != nil
}

// skipRunes discards up to n runes (all of them when n < 0) and reports how
// many it skipped.
func skipRunes(r *bufio.Reader, n int) (int, error) {
	count := 0
	for n < 0 || count < n {
		_, _, err := r.ReadRune()
		if err == io.EOF {
			return count, nil
		}
		if err != nil {
			return count, fmt.Errorf("reading result file: %w", err)
		}
		count++
	}
	return count, nil
}

func copyRunes(w *strings.Builder, r *bufio.Reader, n int) (int, error) {
	count := 0
	for count < n {
		c, _, err := r.ReadRune()
		if err == io.EOF {
			return count, nil
		}
		if err != nil {
			return count, fmt.Errorf("reading result file: %w", err)
		}
		w.WriteRune(c)
		count++
	}
	return count, nil
}
