package intercept

import "strconv"

// sizeKB renders a byte count the way the saved-media notes show it, rounded
// up so a non-empty file never reads as 0KB.
func sizeKB(n int) string {
	return strconv.Itoa((n+1023)/1024) + "KB"
}

// commas renders 200000 as 200,000 for the truncation note.
func commas(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for k := range len(s) {
		if k > 0 && (len(s)-k)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[k])
	}
	return string(out)
}
