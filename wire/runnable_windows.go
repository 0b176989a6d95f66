package wire

import (
	"os"
	"path/filepath"
	"strings"
)

// runnable says whether a file may be run as a command. Windows has no
// execute bit (every file's mode says 0666): it runs a file by its
// extension, the ones PATHEXT lists.
func runnable(info os.FileInfo) bool {
	ext := strings.ToLower(filepath.Ext(info.Name()))
	if ext == "" {
		return false
	}
	for _, e := range pathExt() {
		if ext == e {
			return true
		}
	}
	return false
}

func pathExt() []string {
	v := os.Getenv("PATHEXT")
	if v == "" {
		v = ".com;.exe;.bat;.cmd"
	}
	var out []string
	for _, e := range strings.Split(strings.ToLower(v), ";") {
		if e != "" {
			out = append(out, e)
		}
	}
	return out
}

// notRunnableHint adds to the refusal what makes a file runnable here.
func notRunnableHint() string {
	return " (Windows runs files whose extension PATHEXT lists (" + strings.Join(pathExt(), " ") + "); name the .exe, or run it through its interpreter)"
}
