package cli

import (
	"runtime"
	"testing"
)

func TestTheAgentServerRunsOnOnePUnlessGOMAXPROCSIsSet(t *testing.T) {
	prev := runtime.GOMAXPROCS(3)
	defer runtime.GOMAXPROCS(prev)

	t.Setenv("GOMAXPROCS", "")
	if cpus := oneP(); cpus != 3 || runtime.GOMAXPROCS(0) != 1 {
		t.Errorf("oneP() = %d with GOMAXPROCS %d; want the 3 it had, and 1 P", cpus, runtime.GOMAXPROCS(0))
	}

	runtime.GOMAXPROCS(3)
	t.Setenv("GOMAXPROCS", "3")
	if cpus := oneP(); cpus != 3 || runtime.GOMAXPROCS(0) != 3 {
		t.Errorf("with GOMAXPROCS=3 set, oneP() = %d and the runtime has %d Ps; want both 3", cpus, runtime.GOMAXPROCS(0))
	}
}
