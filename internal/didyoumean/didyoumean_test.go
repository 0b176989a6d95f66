package didyoumean

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestClosest(t *testing.T) {
	tools := []string{"echo", "search", "search_images", "get-tiny-image"}
	cases := map[string]string{
		"serch":     "search",
		"ECHO":      "echo",
		"tiny":      "get-tiny-image",
		"zzzzzzzzz": "",
		"":          "",
	}
	for in, want := range cases {
		if got := Closest(in, tools); got != want {
			t.Errorf("Closest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDistance(t *testing.T) {
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Fatalf("Distance(kitten, sitting) = %d, want 3", d)
	}
}
