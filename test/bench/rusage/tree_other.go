//go:build unix && !linux

package main

// Without /proc the tree is not followed: the first form reports wait4's
// largest peak RSS alone, and -tree reports nothing.
type tree struct{ rssNow int64 }

func newTree(...int) *tree               { return &tree{} }
func (t *tree) sample()                  {}
func (t *tree) total() (int64, int)      { return 0, 0 }
func sampleTree(int) func() (int64, int) { return func() (int64, int) { return 0, 0 } }
func (t *tree) byDepth() []int64         { return nil }
