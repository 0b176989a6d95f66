package intercept

import (
	"fmt"
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

// spillText writes the whole of s to result_<id>.txt and returns the head
// plus a note telling the agent where the rest is and how to read it.
// The file is written straight from the string; the returned text is a new,
// small string, so the caller can drop the large one.
func (p *pass) spillText(s string, chars int) (string, error) {
	id, f, err := p.i.createResult()
	if err != nil {
		return "", err
	}
	_, werr := f.WriteString(s)
	info, err := finish(f, werr)
	if err != nil {
		return "", err
	}
	p.i.remember(id, spilled{path: f.Name(), chars: chars, written: info})
	p.stats.Truncated = true
	p.stats.ResultsSaved++
	p.stats.Files = append(p.stats.Files, f.Name())
	return headRunes(s, p.limit) + truncationNote(p.limit, chars, f.Name(), id), nil
}

func truncationNote(shown, total int, path, id string) string {
	// 3.0's shape ("truncated at N of M chars", "result id: rN"), which
	// agents' prompts look for.
	return fmt.Sprintf("\n\n[truncated at %s of %s chars. Full text saved to %s (result id: %s). Read more with read_result id=%q offset=%d.]",
		commas(shown), commas(total), path, id, id, shown)
}
