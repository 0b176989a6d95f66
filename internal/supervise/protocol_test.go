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
		if ok, err := TargetComplete(b); !ok || err != nil {
			t.Fatalf("TargetComplete(Encode(%+v)) = %v, %v", want, ok, err)
		}
		if ok, err := TargetComplete(b[:len(b)-1]); ok || err != nil {
			t.Errorf("a target cut by one byte is complete (%v) or garbage (%v)", ok, err)
		}
		got, err := DecodeTarget(b)
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
		b := append([]byte{0, 0, 0, byte(len(body))}, body...)
		if got, err := DecodeTarget(b); err == nil {
			t.Errorf("DecodeTarget(%q) = %+v, want an error", body, got)
		}
	}
	if _, err := TargetComplete([]byte{0xff, 0xff, 0xff, 0xff}); err == nil {
		t.Error("a 4 GB length header is not refused")
	}
}

func TestRequestAndEventRoundTrip(t *testing.T) {
	req := Request{Kind: KindRelease, Num: 7, ID: 3, Payload: []byte("x")}
	if got, err := DecodeRequest(req.Encode()); err != nil || !reflect.DeepEqual(got, req) {
		t.Errorf("DecodeRequest(Encode(%+v)) = %+v, %v", req, got, err)
	}
	if _, err := DecodeRequest([]byte("Zxxxxxxxx")); err == nil {
		t.Error("an unknown request kind is not refused")
	}
	ev := Event{Kind: EventExited, Num: 9, Value: -2}
	if got, err := DecodeEvent(ev.Encode()); err != nil || got != ev {
		t.Errorf("DecodeEvent(Encode(%+v)) = %+v, %v", ev, got, err)
	}
	if _, err := DecodeEvent(ev.Encode()[:5]); err == nil {
		t.Error("a short event is not refused")
	}
}

func TestInvoked(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{Command("run-mcp"), true},
		{execCommand("run-mcp", Target{Path: "/bin/srv", Argv: []string{"/bin/srv"}}), true},
		{[]string{"run-mcp", Arg}, false}, // the guard must come first
		{[]string{"run-mcp", "list-tools", "--", "srv"}, false},
		{[]string{"run-mcp"}, false},
	} {
		if got := Invoked(c.args); got != c.want {
			t.Errorf("Invoked(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
