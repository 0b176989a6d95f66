package validate

import (
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/internal/supervise"
)

// The binary serves as run-mcp's supervisor of the targets its tests start
// (see supervise.Invoked): dispatch before anything else.
func TestMain(m *testing.M) {
	if supervise.Invoked(os.Args) {
		os.Exit(supervise.Main())
	}
	goleak.VerifyTestMain(m)
}

func TestSchemaProblem(t *testing.T) {
	cases := map[string]string{
		`{"type":"object"}`: "",
		`{"type":"object","properties":{"a":{}},"required":["a"]}`: "",
		`{"type":"string"}`:                  `type is "string"`,
		`[1,2]`:                              "not a JSON object",
		`{"type":"object","required":["x"]}`: "required x never defined",
		`{"type":"object","required":"x"}`:   "required is not an array",
		``:                                   "missing",
	}
	for schema, want := range cases {
		got := schemaProblem([]byte(schema), true)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("schemaProblem(%s) = %q, want %q", schema, got, want)
		}
	}
}

func TestResultIsTheWorstCheck(t *testing.T) {
	r := Report{}
	r.add("a", Pass, "")
	r.add("b", Skip, "")
	r.finish()
	if r.Result != Pass {
		t.Fatalf("pass+skip = %s", r.Result)
	}
	r.add("c", Warn, "")
	r.finish()
	if r.Result != Warn {
		t.Fatalf("with a warning = %s", r.Result)
	}
	r.add("d", Fail, "")
	r.finish()
	if r.Result != Fail {
		t.Fatalf("with a failure = %s", r.Result)
	}
	text := r.Text(false)
	if strings.Contains(text, "[PASS]") || !strings.Contains(text, "[FAIL] d") || !strings.Contains(text, "[WARN] c") {
		t.Fatalf("without deep only warnings and failures are listed:\n%s", text)
	}
}

func TestCrashSignature(t *testing.T) {
	if crashSignature("panic: runtime error: index out of range") == "" || crashSignature("listening on :8080") != "" {
		t.Fatal("crash signatures misread")
	}
}
