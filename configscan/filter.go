package configscan

import "strings"

// applyFilter keeps the entries, and the file errors, that mention needle
// (case-insensitive) in their name, command and args, url, source or file.
// Searched is left whole: it says where Discover looked, filter or not.
func applyFilter(r *Result, needle string) {
	needle = lower(needle)
	if needle == "" {
		return
	}
	entries := r.Entries[:0]
	for _, e := range r.Entries {
		if containsFold(needle, e.Name, e.Command+" "+strings.Join(e.Args, " "), e.URL, e.Source, e.File) {
			entries = append(entries, e)
		}
	}
	r.Entries = entries
	errs := r.Errors[:0]
	for _, fe := range r.Errors {
		if containsFold(needle, fe.Source, fe.File) {
			errs = append(errs, fe)
		}
	}
	r.Errors = errs
}

func containsFold(needle string, fields ...string) bool {
	for _, f := range fields {
		if strings.Contains(strings.ToLower(f), needle) {
			return true
		}
	}
	return false
}
