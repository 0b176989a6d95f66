package intercept

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// overLimit counts runes only when the byte length could exceed the limit:
// a string never has more runes than bytes, so most texts skip the count.
func overLimit(s string, limit int) (chars int, over bool) {
	if limit == NoLimit || len(s) <= limit {
		return 0, false
	}
	chars = utf8.RuneCountInString(s)
	return chars, chars > limit
}

// headRunes returns the first n characters of s as a slice of s, without
// converting the whole string to runes.
func headRunes(s string, n int) string {
	count := 0
	for pos := range s {
		if count == n {
			return s[:pos]
		}
		count++
	}
	return s
}

// spillText writes the whole of s (chars characters) to result_<id>.txt
// and returns its first head characters plus a note telling the agent
// where the rest is and how to read it. The file is written straight from
// the string; the returned text is a new, small string, so the caller can
// drop the large one.
func (p *pass) spillText(s string, chars, head int) (string, error) {
	id, path, err := p.spill(chars, func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	})
	if err != nil {
		return "", err
	}
	return headRunes(s, head) + noteAfter(head, p.note(head, chars, path, id)), nil
}

// noteAfter is the truncation note after a head of head characters: on a
// line of its own after text, alone when nothing of the text is shown.
func noteAfter(head int, note string) string {
	if head == 0 {
		return strings.TrimPrefix(note, "\n\n")
	}
	return note
}

// spill writes a text of chars characters to a fresh result file with
// write, remembers it for Read, and counts it.
func (p *pass) spill(chars int, write func(io.Writer) error) (id, path string, err error) {
	id, f, err := p.i.createResult()
	if err != nil {
		return "", "", err
	}
	werr := write(f)
	info, err := finish(f, werr)
	if err != nil {
		return "", "", err
	}
	p.i.remember(id, spilled{path: f.Name(), chars: chars, written: info, ours: true})
	p.stats.Truncated = true
	p.stats.ResultsSaved++
	p.stats.Files = append(p.stats.Files, f.Name())
	return id, f.Name(), nil
}

// note is the truncation note for this pass's reader: the agent's names
// read_result; a shell's (Options.Shell) names the file instead, since a
// shell has no read_result to call.
func (p *pass) note(shown, total int, path, id string) string {
	if p.i.shell {
		return shellTruncationNote(shown, total, path)
	}
	return truncationNote(shown, total, path, id)
}

// shellTruncationNote is the note for a shell: the same opening as the
// agent's (scripts look for "[truncated at"), then the file to read, since
// read_result is a tool of the agent server that a shell cannot call.
func shellTruncationNote(shown, total int, path string) string {
	return fmt.Sprintf("\n\n[truncated at %s of %s chars. Full text saved to %s; read it there, or pass --max-text -1 for no limit.]",
		commas(shown), commas(total), path)
}

func truncationNote(shown, total int, path, id string) string {
	// 3.0's shape ("truncated at N of M chars", "result id: rN"), which
	// agents' prompts look for.
	return fmt.Sprintf("\n\n[truncated at %s of %s chars. Full text saved to %s (result id: %s). Read more with read_result id=%q offset=%d.]",
		commas(shown), commas(total), path, id, id, shown)
}

// itemSeparator joins the text items of one result in its result file, so
// read_result pages through them in order.
const itemSeparator = "\n\n"

// textItems is the text items of a result's content, by index, with the
// position each starts at in the result file that would join them and its
// length, both in characters (counted once: a 20 MB text takes a while).
type textItems struct {
	index  []int
	texts  []string
	starts []int
	chars  []int
	total  int // characters of the joined text
}

// collectText finds the text items of content. counted says whether the
// characters were counted: when every byte fits in limit (a character
// takes at least one), nothing can be over it and nothing is counted.
func collectText(content []contentView, limit int) (t textItems, counted bool) {
	bytes := 0
	for k, c := range content {
		if c.isText {
			t.index, t.texts = append(t.index, k), append(t.texts, c.text.Text)
			bytes += len(c.text.Text)
		}
	}
	if len(t.texts) > 1 {
		bytes += len(itemSeparator) * (len(t.texts) - 1)
	}
	if limit == NoLimit || bytes <= limit {
		return t, false
	}
	at := 0
	for j, s := range t.texts {
		if j > 0 {
			at += len(itemSeparator)
		}
		n := utf8.RuneCountInString(s)
		t.starts, t.chars = append(t.starts, at), append(t.chars, n)
		at += n
	}
	t.total = at
	return t, true
}

// boundText keeps the text of a whole result within the limit: the text
// items together show at most limit characters (an item past it is cut,
// the items after it are left out), and the whole text, every item in
// order, is saved once to one result file that read_result continues
// where the reply stopped. cut is false when it all fits; then content is
// returned as it was.
func (p *pass) boundText(content []contentView) (out []contentView, cut bool, err error) {
	t, counted := collectText(content, p.limit)
	if !counted || t.total <= p.limit {
		return content, false, nil
	}
	k := 0 // the first item that does not fit whole
	for k < len(t.texts) && t.starts[k]+t.chars[k] <= p.limit {
		k++
	}
	head := max(p.limit-t.starts[k], 0)
	shown := t.starts[k] + head
	id, path, err := p.spill(t.total, func(w io.Writer) error {
		for j, s := range t.texts {
			if j > 0 {
				if _, err := io.WriteString(w, itemSeparator); err != nil {
					return err
				}
			}
			if _, err := io.WriteString(w, s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	note := noteAfter(head, p.note(shown, t.total, path, id))
	dropped := map[int]bool{}
	for _, idx := range t.index[k+1:] {
		dropped[idx] = true
	}
	for idx, c := range content {
		switch {
		case dropped[idx]:
		case idx == t.index[k]:
			c.text.Text = headRunes(c.text.Text, head) + note
			c.changed = true
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out, true, nil
}
