package wire

import (
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// patience bounds every wait in these tests. It is a deadline against hangs,
// not a timing assertion: nothing here should come close to it.
const patience = 20 * time.Second

// waitClosed fails the test unless ch is closed within patience.
func waitClosed(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(patience):
		t.Fatalf("gave up waiting for %s", what)
	}
}
