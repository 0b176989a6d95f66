package didyoumean

import (
	"sort"
	"strings"
)

// Closest returns the candidate nearest to name by edit distance (case
// folded; a candidate containing name counts as near), or "" when none is
// close enough to be a plausible typo.
func Closest(name string, candidates []string) string {
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	lname := strings.ToLower(name)
	best, bestDist := "", max(2, len(name)/3)+1
	for _, c := range sorted {
		lc := strings.ToLower(c)
		d := Distance(lname, lc)
		if len(name) >= 3 && (strings.Contains(lc, lname) || strings.Contains(lname, lc)) {
			d = min(d, 1)
		}
		if d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
