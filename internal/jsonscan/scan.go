package jsonscan

import (
	"bytes"
	"encoding/json"
)

// Members calls fn with each top-level member of obj, in order: the key as
// it appears between its quotes (escapes not undone) and the value's bytes.
// fn returns false to stop. Members reports false when obj is not an object.
// obj must be valid JSON; on other input the result is unspecified (but
// Members never reads out of bounds).
func Members(obj []byte, fn func(key, val []byte) bool) bool {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] == '}' {
			return true
		}
		if obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
		if i >= len(obj) || obj[i] != '"' {
			return false
		}
		end := endOfString(obj, i)
		key := obj[i+1 : max(end-1, i+1)]
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = skipSpace(obj, i+1)
		vend := endOfValue(obj, i)
		if !fn(key, obj[i:vend]) {
			return true
		}
		i = vend
	}
}

// Lookup returns the value of the top-level member key of obj (a key
// without escapes), and whether there was one.
func Lookup(obj []byte, key string) (val []byte, ok bool) {
	Members(obj, func(k, v []byte) bool {
		if string(k) == key {
			val, ok = v, true
			return false
		}
		return true
	})
	return val, ok
}

// String decodes a JSON string value; ok is false when val is not a string.
func String(val []byte) (s string, ok bool) {
	if len(val) < 2 || val[0] != '"' || val[len(val)-1] != '"' {
		return "", false
	}
	inner := val[1 : len(val)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	if json.Unmarshal(val, &s) != nil {
		return "", false
	}
	return s, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// endOfString returns the index just past the string starting at b[i].
func endOfString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// endOfValue returns the index just past the value starting at b[i].
func endOfValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return endOfString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = endOfString(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return j
}
