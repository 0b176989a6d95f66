package intercept

import "testing"

func TestExtFor(t *testing.T) {
	for _, tc := range []struct {
		mime string
		data string
		ext  string
	}{
		{"image/png", "", "png"},
		{"IMAGE/JPEG", "", "jpg"},
		{"image/svg+xml; charset=utf-8", "", "svg"},
		{"audio/mpeg", "", "mp3"},
		{"audio/wav", "", "wav"},
		{"application/octet-stream", "\x89PNG\r\n\x1a\n....", "png"}, // sniffed
		{"", "GIF89a......", "gif"},
		{"x/unknown", "\x00\x01\x02", "bin"},
	} {
		if got := extFor(tc.mime, []byte(tc.data)); got != tc.ext {
			t.Errorf("extFor(%q) = %q, want %q", tc.mime, got, tc.ext)
		}
	}
}

func TestCommas(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 50000: "50,000", 1234567: "1,234,567"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestHeadRunes(t *testing.T) {
	if got := headRunes("héllo🙂x", 6); got != "héllo🙂" {
		t.Errorf("headRunes = %q", got)
	}
	if got := headRunes("ab", 5); got != "ab" {
		t.Errorf("headRunes past the end = %q", got)
	}
}

func TestSizeKB(t *testing.T) {
	for n, want := range map[int]string{0: "0KB", 1: "1KB", 1024: "1KB", 1025: "2KB", 24 * 1024: "24KB"} {
		if got := sizeKB(n); got != want {
			t.Errorf("sizeKB(%d) = %q, want %q", n, got, want)
		}
	}
}

// Every file a media kind is saved under is one Prune removes: a kind
// added later cannot leave its files behind for good.
func TestPruneKnowsEveryMediaPrefix(t *testing.T) {
	for k := kindImage; k <= kindData; k++ {
		name := k.prefix() + "_1700000000000_1.bin"
		if !ownFile().MatchString(name) {
			t.Errorf("%s files (%s) are never pruned", k.label(), name)
		}
	}
}
