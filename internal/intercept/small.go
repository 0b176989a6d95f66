package intercept

// SmallPlain says, from its size alone, that a result of n bytes cannot
// hold a text this Interceptor would change: no text in it can reach the
// text limit or the length of base64 it saves (a JSON string of c
// characters takes at least c bytes). Media and embedded resources are not
// judged here: the caller checks that none is present.
func (i *Interceptor) SmallPlain(n int) bool {
	limit := minBase64Chars
	if i.maxText != NoLimit && i.maxText < limit {
		limit = i.maxText
	}
	return n < limit
}
