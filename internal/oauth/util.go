package oauth

import "strings"

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func fields(s string) []string { return strings.Fields(s) }
