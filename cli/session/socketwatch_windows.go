package session

// socketWatch: a named pipe lives as long as its handles, and nothing
// cleans it from under the daemon, so there is nothing to watch.
type socketWatch struct{}

func watchSocket(string) *socketWatch { return &socketWatch{} }

// changed never fires.
func (*socketWatch) changed() <-chan struct{} { return nil }

func (*socketWatch) lost(string) bool { return false }

func (*socketWatch) stop() {}
