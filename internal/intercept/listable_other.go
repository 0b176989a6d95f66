//go:build !unix

package intercept

import "os"

// listable opens dir for reading and closes it: what listing it will need.
func listable(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return d.Close()
}
