package demoserver

import "testing"

// Every tool's annotations are true of it, as a client reads them over the
// wire: only crash ends anything, only the tools that change state are not
// read-only, and only those that ask a person or a model reach beyond the
// server.
func TestToolAnnotationsAreTrue(t *testing.T) {
	s := connect(t, Options{}, legacy())
	want := map[string]hints{
		"echo": pure, "add": pure, "fail": pure, "big_text": pure, "env": pure, "slow": pure,
		"image": pure, "audio": pure, "list_roots": pure,
		"log": emits, "noise": emits, "stderr": emits,
		"crash":        {destructive: true},
		"ask_name":     {readOnly: true, openWorld: true},
		"ask_llm":      {readOnly: true, openWorld: true},
		"add_tool":     {idempotent: true},
		"bump_counter": {},
	}
	tools := s.toolNames(t)
	for name, tool := range tools {
		h, ok := want[name]
		if !ok {
			t.Errorf("tool %s has no expected annotations here: add it to this table", name)
			continue
		}
		got := tool.Annotations
		for _, c := range []struct {
			hint string
			val  *bool
			want bool
		}{
			{"readOnlyHint", got.ReadOnlyHint, h.readOnly},
			{"destructiveHint", got.DestructiveHint, h.destructive},
			{"idempotentHint", got.IdempotentHint, h.idempotent},
			{"openWorldHint", got.OpenWorldHint, h.openWorld},
		} {
			if c.val == nil || *c.val != c.want {
				t.Errorf("%s: %s = %v, want %v", name, c.hint, fmtHint(c.val), c.want)
			}
		}
	}
	if len(tools) != len(want) {
		t.Errorf("the server lists %d tools, the table %d", len(tools), len(want))
	}
}

func fmtHint(b *bool) any {
	if b == nil {
		return "absent"
	}
	return *b
}

// A tool added at run time (add_tool, --tools-file) answers like echo and
// says so.
func TestAddedToolIsPure(t *testing.T) {
	s := connect(t, Options{}, legacy())
	s.call(t, "add_tool", map[string]any{"name": "extra"})
	got := s.toolNames(t)["extra"].Annotations
	if got.ReadOnlyHint == nil || !*got.ReadOnlyHint || got.DestructiveHint == nil || *got.DestructiveHint {
		t.Errorf("extra: %+v, want read-only and not destructive", got)
	}
}
