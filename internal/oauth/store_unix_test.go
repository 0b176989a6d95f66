//go:build unix

package oauth

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// A token file others can read is refused, saying how to fix it; so is a
// token directory others can open.
func TestATokenFileOthersCanReadIsRefused(t *testing.T) {
	w := newWorld(t)
	c := testClient(t, w)
	if err := c.Authorize(ctxT(t), w.challenge(), &browser{}); err != nil {
		t.Fatal(err)
	}
	path, _ := c.opts.Store.Path(c.server)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	again := New(c.server, c.opts)
	defer again.Close()
	err := again.Authorize(ctxT(t), w.challenge(), &browser{})
	var oe *Error
	if !errors.As(err, &oe) || oe.Step != StepStore || !strings.Contains(err.Error(), "chmod 600 "+path) || !strings.Contains(err.Error(), "mode 0644") {
		t.Fatalf("got %v", err)
	}
	if _, _, err := again.opts.Store.Held(c.server); err == nil {
		t.Error("Held must refuse it too")
	}
	_ = os.Chmod(path, 0o600)
	dir := c.opts.Store.Dir
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := again.opts.Store.Held(c.server); err == nil || !strings.Contains(err.Error(), "chmod 700 "+dir) {
		t.Fatalf("an open directory: %v", err)
	}
}
