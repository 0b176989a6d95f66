package jsonscan

// ObjectAt walks the JSON object starting at b[i] (no leading whitespace)
// and returns the index just past it. For each member, in order, it calls
// member with the key unquoted and the index where the value starts (no
// leading whitespace); member decodes or skips the value and returns the
// index just past it. So a caller reads each byte once, however deep the
// value it decodes. ok is false if there is no object this package can
// walk at b[i], or as soon as member reports false.
func ObjectAt(b []byte, i int, member func(key string, i int) (end int, ok bool)) (end int, ok bool) {
	if i >= len(b) || b[i] != '{' {
		return 0, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		end, escaped, ok := skipString(b, i)
		if !ok || escaped { // escaped keys are rare: encoding/json's job
			return 0, false
		}
		key := string(b[i+1 : end-1])
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		if i, ok = member(key, skipSpace(b, i+1)); !ok {
			return 0, false
		}
		var more bool
		if i, more, ok = afterItem(b, i, '}'); !ok || !more {
			return i, ok
		}
	}
}

// ArrayAt is ObjectAt for an array: element is called with the index where
// each element starts and returns the index just past it.
func ArrayAt(b []byte, i int, element func(i int) (end int, ok bool)) (end int, ok bool) {
	if i >= len(b) || b[i] != '[' {
		return 0, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		if i, ok = element(i); !ok {
			return 0, false
		}
		var more bool
		if i, more, ok = afterItem(b, i, ']'); !ok || !more {
			return i, ok
		}
	}
}

// Skip returns the index just past the valid JSON value starting at b[i].
func Skip(b []byte, i int) (end int, ok bool) { return skipValue(b, i, 0) }

// Whole walks the one value of b with walk, given where it starts; ok is
// false unless walk succeeds and only whitespace surrounds the value.
func Whole(b []byte, walk func(i int) (end int, ok bool)) bool {
	end, ok := walk(skipSpace(b, 0))
	return ok && skipSpace(b, end) == len(b)
}

// Object calls member for each member of the JSON object that is the whole
// of b (surrounding whitespace allowed), in order, with the key unquoted
// and the value as a slice of b.
func Object(b []byte, member func(key string, val []byte) bool) bool {
	return Whole(b, func(i int) (int, bool) {
		return ObjectAt(b, i, func(key string, i int) (int, bool) {
			end, ok := Skip(b, i)
			return end, ok && member(key, b[i:end])
		})
	})
}

// Array calls element for each element of the JSON array that is the
// whole of b (surrounding whitespace allowed), in order, as a slice of b.
func Array(b []byte, element func(val []byte) bool) bool {
	return Whole(b, func(i int) (int, bool) {
		return ArrayAt(b, i, func(i int) (int, bool) {
			end, ok := Skip(b, i)
			return end, ok && element(b[i:end])
		})
	})
}

// Valid reports whether b is one JSON value with optional surrounding
// whitespace. False may also mean nesting deeper than this package walks.
func Valid(b []byte) bool {
	return Whole(b, func(i int) (int, bool) { return Skip(b, i) })
}
