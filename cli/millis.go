package cli

import (
	"fmt"
	"strconv"
	"time"
)

// millis is the value of a flag in whole milliseconds (--timeout,
// --connect-timeout, --request-timeout). Its errors are in words, read
// where the flags are parsed: "5s" is a duration, which it says how to
// write, not strconv's "invalid syntax". zero says 0 is allowed (the
// default).
type millis struct {
	v    *int
	name string
	zero bool
}

func (m millis) String() string {
	if m.v == nil {
		return "0"
	}
	return strconv.Itoa(*m.v)
}

func (m millis) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		if d, derr := time.ParseDuration(s); derr == nil && d > 0 {
			return wordedValue{fmt.Sprintf("%s takes whole milliseconds, not a duration: for %s write %s %d", m.name, s, m.name, d.Milliseconds())}
		}
		return wordedValue{fmt.Sprintf("%s takes whole milliseconds (e.g. %s 5000 for five seconds), got %q", m.name, m.name, s)}
	}
	if n < 0 || (n == 0 && !m.zero) {
		return wordedValue{fmt.Sprintf("%s must be a positive number of milliseconds, got %d", m.name, n)}
	}
	*m.v = n
	return nil
}

func (millis) Type() string { return "ms" }

// wordedValue is a flag value's refusal that is a whole message already:
// it is shown alone, without the parser's `invalid argument "x" for
// "--flag" flag:` before it.
type wordedValue struct{ msg string }

func (e wordedValue) Error() string { return e.msg }
