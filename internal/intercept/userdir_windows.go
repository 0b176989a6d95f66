package intercept

import "github.com/run-mcp/run-mcp/internal/safesocket"

// userTag names this user's directory under the temp directory. Windows
// has no uid (os.Getuid is -1): the SID names it, as it names the session
// directory beside it.
func userTag() string {
	tag, err := safesocket.UserTag()
	if err != nil {
		return "unknown-user" // ensurePrivate then fails with the reason
	}
	return tag
}

// platformPrivate makes d private where mode bits say nothing (Windows:
// every directory reads 0777): by an owner-only access list, checked for
// its owner and for links, as the session directory is.
func platformPrivate(d string) (bool, error) {
	return true, safesocket.PrivateDir(d, "output directory")
}
