package cli

// platformOpener is the command that opens a URL in the user's browser.
func platformOpener(url string) []string {
	return []string{"rundll32", "url.dll,FileProtocolHandler", url}
}
