package jsonscan

// Lookup returns the value of the member key of the JSON object that is the
// whole of b, and whether b is such an object with that member (the last
// one, when a key repeats, as encoding/json reads it).
func Lookup(b []byte, key string) (val []byte, ok bool) {
	found := false
	if !Object(b, func(k string, v []byte) bool {
		if k == key {
			val, found = v, true
		}
		return true
	}) {
		return nil, false
	}
	return val, found
}
