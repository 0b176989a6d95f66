//go:build !linux

package wire

// platformSpawner: only Linux runs targets under a supervisor process;
// elsewhere a spawn needs nothing started beforehand.
type platformSpawner struct{}

func (*platformSpawner) close() {}
