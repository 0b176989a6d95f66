package cli

import (
	"fmt"
	"math"
	"strconv"
)

// minutes is the value of --idle-timeout: a finite number of minutes, 0 or
// more, fractions allowed. NaN, inf and negatives are refused while the
// flags are parsed, before anything starts.
type minutes struct{ v *float64 }

func (m minutes) String() string {
	if m.v == nil {
		return "0"
	}
	return strconv.FormatFloat(*m.v, 'g', -1, 64)
}

func (m minutes) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !validMinutes(f) {
		return wordedValue{fmt.Sprintf("--idle-timeout must be a positive number of minutes (fractions allowed; 0 for never), got %q", s)}
	}
	*m.v = f
	return nil
}

func (minutes) Type() string { return "minutes" }

func validMinutes(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) && f >= 0 }
