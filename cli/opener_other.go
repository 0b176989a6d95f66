//go:build !darwin && !windows

package cli

import "os"

// platformOpener is the command that opens a URL in the user's browser:
// xdg-open where a desktop session runs (nil on a bare console or over
// SSH, where it would start a text browser in the terminal run-mcp prints
// to).
func platformOpener(url string) []string {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return nil
	}
	return []string{"xdg-open", url}
}
