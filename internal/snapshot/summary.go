package snapshot

import (
	"fmt"
	"strings"
)

// Summary counts what a connection listed, for connect replies, for example
// "4 tools, 1 resource, 1 resource template, 1 prompt". Kinds the server
// does not offer are left out rather than shown as 0.
func Summary(l Listing) string {
	var parts []string
	for _, k := range l.kinds() {
		if !k.listed {
			continue
		}
		noun := k.plural
		if k.count == 1 {
			noun = k.singular
		}
		parts = append(parts, fmt.Sprintf("%d %s", k.count, noun))
	}
	if len(parts) == 0 {
		return "no tools, resources or prompts"
	}
	return strings.Join(parts, ", ")
}
