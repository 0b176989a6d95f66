package supervise

import (
	"reflect"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestTargetRoundTrip(t *testing.T) {
	for _, want := range []Target{
		{Path: "/bin/srv", Argv: []string{"/bin/srv"}, Env: []string{}},
		{Path: "/bin/srv", Argv: []string{"/bin/srv", "--a", "", "b c"}, Env: []string{"PATH=/bin", "K=v=w", ""}, Dir: "/tmp/x y"},
	} {
		b := want.Encode()
		n, err := targetLen(b[:4])
		if err != nil || n != len(b)-4 {
			t.Fatalf("length header of %+v = %d (%v), want %d", want, n, err, len(b)-4)
		}
		got, err := DecodeTarget(b[4:])
		if err != nil {
			t.Fatalf("DecodeTarget(Encode(%+v)): %v", want, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("round trip of %+v gave %+v", want, got)
		}
	}
}

func TestDecodeTargetRefusesGarbage(t *testing.T) {
	for _, body := range []string{"", "no nul", "/p\x00\x00", "/p\x00\x00x\x00", "/p\x00\x002\x00a\x00", "\x00\x001\x00a\x00", "/p\x00\x000\x00"} {
		if got, err := DecodeTarget([]byte(body)); err == nil {
			t.Errorf("DecodeTarget(%q) = %+v, want an error", body, got)
		}
	}
}

func TestParseStatusDone(t *testing.T) {
	st, err := ParseStatus("done 0\n")
	if err != nil || st != (Status{Kind: KindDone}) {
		t.Errorf(`ParseStatus("done 0") = %+v, %v`, st, err)
	}
}
