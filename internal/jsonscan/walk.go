package jsonscan

// Object calls member for each member of the JSON object that is the whole
// of b (surrounding whitespace allowed), in order, with the key unquoted
// and the value as a slice of b. It reports false if b is not an object
// this package can walk, or as soon as member returns false.
func Object(b []byte, member func(key string, val []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		end, escaped, ok := skipString(b, i)
		if !ok || escaped { // escaped keys are rare: encoding/json's job
			return false
		}
		key := string(b[i+1 : end-1])
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		start := skipSpace(b, i+1)
		if i, ok = skipValue(b, start, 1); !ok {
			return false
		}
		if !member(key, b[start:i]) {
			return false
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// Array calls element for each element of the JSON array that is the whole
// of b (surrounding whitespace allowed), in order, as a slice of b. It
// reports false if b is not an array this package can walk, or as soon as
// element returns false.
func Array(b []byte, element func(val []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		start := i
		var ok bool
		if i, ok = skipValue(b, start, 1); !ok {
			return false
		}
		if !element(b[start:i]) {
			return false
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// Valid reports whether b is one JSON value with optional surrounding
// whitespace. False may also mean nesting deeper than this package walks.
func Valid(b []byte) bool {
	i, ok := skipValue(b, skipSpace(b, 0), 0)
	return ok && skipSpace(b, i) == len(b)
}
