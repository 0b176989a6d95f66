package actors

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/internal/demoserver"
	"github.com/run-mcp/run-mcp/internal/supervise"
	"github.com/run-mcp/run-mcp/wire"
)

// The test binary doubles as the target: with this variable set it serves
// the bundled demo server on stdio instead of running tests.
const demoEnv = "RUN_MCP_ACTORS_TEST_DEMO"

func TestMain(m *testing.M) {
	// The binary serves as run-mcp's supervisor of the targets its tests
	// start (see supervise.Invoked), and as its exec trampoline, which runs
	// with a target's environment: dispatch before anything else.
	if supervise.Invoked(os.Args) {
		os.Exit(supervise.Main())
	}
	if never := os.Getenv(stuckEnv); never != "" {
		serveStuck(strings.Split(never, ","))
		os.Exit(0)
	}
	if os.Getenv(demoEnv) == "1" {
		cmd := demoserver.NewCommand()
		cmd.SetArgs(os.Args[len(os.Args)-countDemoArgs():])
		if err := cmd.Execute(); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

func countDemoArgs() int {
	for i, a := range os.Args {
		if a == "--demo" {
			return len(os.Args) - i - 1
		}
	}
	return 0
}

func demoConfig(t *testing.T, args ...string) Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Config{Spec: wire.Spec{Command: exe, Args: append([]string{"--demo"}, args...), Env: map[string]string{demoEnv: "1"}}}
}

type slowHost struct {
	Headless
	wait time.Duration
}

func (h slowHost) Caps() HostCaps { return HostCaps{ElicitForm: true} }

func (h slowHost) Ask(ctx context.Context, q Question) []Answer {
	select {
	case <-time.After(h.wait):
	case <-ctx.Done():
		return []Answer{{Err: ctx.Err()}}
	}
	return []Answer{{Result: json.RawMessage(`{"action":"accept","content":{"name":"Ada","colour":"blue"}}`)}}
}

// argsJSON encodes a call's arguments.
func argsJSON(m map[string]any) json.RawMessage {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

func TestResolveRules(t *testing.T) {
	reg := NewRegistry(Options{MaxConnections: 2})
	defer reg.Close()
	ctx := context.Background()
	if _, err := reg.Resolve("", true); !isCode(err, CodeNoConnection) {
		t.Fatalf("empty registry: want NO_CONNECTION, got %v", err)
	}
	for _, name := range []string{"a", "b"} {
		if _, err := reg.Connect(ctx, name, demoConfig(t)); err != nil {
			t.Fatalf("connect %s: %v", name, err)
		}
	}
	_, err := reg.Resolve("", true)
	if !isCode(err, CodeConnectionRequired) || !strings.Contains(err.Error(), `most recently used is "b"`) {
		t.Fatalf("two open: want CONNECTION_REQUIRED naming b, got %v", err)
	}
	if _, err := reg.Connect(ctx, "c", demoConfig(t)); !isCode(err, CodeConnectionLimit) {
		t.Fatalf("past the limit: want CONNECTION_LIMIT, got %v", err)
	}
	if _, err := reg.Disconnect(ctx, "b", false); err != nil {
		t.Fatal(err)
	}
	c, err := reg.Resolve("", true)
	if err != nil || c.Name() != "a" {
		t.Fatalf("one live and one record: want a, got %v %v", c, err)
	}
	if _, err := reg.Resolve("zzz", false); !isCode(err, CodeNoConnection) {
		t.Fatalf("unknown name: want NO_CONNECTION, got %v", err)
	}
}

func TestClientWaitDoesNotCountAgainstTimeout(t *testing.T) {
	reg := NewRegistry(Options{Host: slowHost{wait: 600 * time.Millisecond}})
	defer reg.Close()
	ctx := context.Background()
	if _, err := reg.Connect(ctx, "", demoConfig(t)); err != nil {
		t.Fatal(err)
	}
	c, _ := reg.Resolve("", true)
	out, err := c.Call(ctx, CallRequest{Kind: KindTool, Name: "ask_name", Timeout: 400 * time.Millisecond})
	if err != nil {
		t.Fatalf("a form answered after the budget tripped the timeout: %v", err)
	}
	if len(out.Rounds) != 1 || out.Rounds[0].Outcome != "accepted" || out.InputWait == 0 {
		t.Fatalf("rounds %+v wait %v", out.Rounds, out.InputWait)
	}
	_, err = c.Call(ctx, CallRequest{Kind: KindTool, Name: "slow", Args: argsJSON(map[string]any{"seconds": 5}), Timeout: 100 * time.Millisecond})
	var te *TimeoutError
	if !errors.As(err, &te) && !strings.Contains(err.Error(), "timed out after") {
		t.Fatalf("want a timeout, got %v", err)
	}
}

func TestReconnectInterruptsCall(t *testing.T) {
	reg := NewRegistry(Options{})
	defer reg.Close()
	ctx := context.Background()
	if _, err := reg.Connect(ctx, "", demoConfig(t)); err != nil {
		t.Fatal(err)
	}
	c, _ := reg.Resolve("", true)
	done := make(chan error, 1)
	go func() {
		_, err := c.Call(ctx, CallRequest{Kind: KindTool, Name: "slow", Args: argsJSON(map[string]any{"seconds": 10})})
		done <- err
	}()
	for {
		st, _ := c.Status(ctx)
		if st.InFlight == 1 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := reg.Reconnect(ctx, "", nil); err != nil {
		t.Fatal(err)
	}
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "A reconnect interrupted this call") {
		t.Fatalf("want the reconnect message, got %v", err)
	}
}

// What an operation on the actor changed is what Phase and Why read as soon
// as the operation returns: a caller that connects and then looks at the
// phase must not see the one from before.
func TestPhaseAndWhyAreCurrentWhenAnOperationReturns(t *testing.T) {
	reg := NewRegistry(Options{})
	defer reg.Close()
	ctx := context.Background()
	if _, err := reg.Connect(ctx, "m", demoConfig(t)); err != nil {
		t.Fatal(err)
	}
	c, _ := reg.Resolve("m", false)
	if p := c.Phase(); p != PhaseLive {
		t.Fatalf("just connected, Phase says %q", p)
	}
	for i := range 2000 {
		want := strconv.Itoa(i)
		if err := c.do(ctx, func(st *connState) { st.why = want }); err != nil {
			t.Fatal(err)
		}
		if got := c.Why(); got != want {
			t.Fatalf("operation %d set why %q, Why read %q", i, want, got)
		}
	}
}

func TestIdleConnectionIsClosedAndKeepsItsRecord(t *testing.T) {
	reg := NewRegistry(Options{IdleTimeout: 150 * time.Millisecond})
	defer reg.Close()
	ctx := context.Background()
	if _, err := reg.Connect(ctx, "idle", demoConfig(t)); err != nil {
		t.Fatal(err)
	}
	c, _ := reg.Resolve("idle", false)
	deadline := time.Now().Add(10 * time.Second)
	for c.Phase() == PhaseLive && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	st, err := c.Status(ctx)
	if err != nil || st.Phase != PhaseDisconnected || !strings.Contains(st.Why, "without a call (--idle-timeout)") {
		t.Fatalf("want an idle close with its reason, got %+v %v", st.Phase, st.Why)
	}
	if _, err := reg.Reconnect(ctx, "idle", nil); err != nil {
		t.Fatalf("the record must reconnect: %v", err)
	}
}

// A panic inside the actor is recovered: the server is stopped, the record
// kept with the reason, and a reconnect starts it afresh.
func TestActorPanicIsRecovered(t *testing.T) {
	reg := NewRegistry(Options{})
	defer reg.Close()
	ctx := context.Background()
	info, err := reg.Connect(ctx, "fragile", demoConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := reg.Resolve("fragile", false)
	_ = c.do(ctx, func(*connState) { panic("boom") })
	st, err := c.Status(ctx)
	if err != nil || st.Phase != PhaseDead || !strings.Contains(st.Why, "internal error (boom)") {
		t.Fatalf("after a panic: phase %s, why %q, err %v", st.Phase, st.Why, err)
	}
	_, err = c.Call(ctx, CallRequest{Kind: KindTool, Name: "echo", Args: argsJSON(map[string]any{"message": "x"})})
	if err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Fatalf("a call after the panic must say why it cannot run: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for procAlive(info.Pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if procAlive(info.Pid) {
		t.Fatalf("the server PID %d outlived the panic", info.Pid)
	}
	if _, err := reg.Reconnect(ctx, "fragile", nil); err != nil {
		t.Fatalf("reconnect after a panic: %v", err)
	}
}

func procAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

// TestStatusNeverLiveOnceExited: a status query right after a call the
// server died in reports the connection dead whenever it reports an exit.
func TestStatusNeverLiveOnceExited(t *testing.T) {
	reg := NewRegistry(Options{Host: Headless{}})
	defer reg.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := 0; i < 5; i++ {
		name := "c" + strconv.Itoa(i)
		if _, err := reg.Connect(ctx, name, demoConfig(t)); err != nil {
			t.Fatal(err)
		}
		c, err := reg.Resolve(name, false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Call(ctx, CallRequest{Kind: KindTool, Name: "crash", Args: argsJSON(map[string]any{"code": 3}), Timeout: 20 * time.Second}); err == nil {
			t.Fatal("the crash call succeeded")
		}
		st, err := c.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Exit != "" && st.Phase != PhaseDead {
			t.Fatalf("status says %q with exit %q", st.Phase, st.Exit)
		}
	}
}
