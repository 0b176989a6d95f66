package main

// openFilesTooFew: Windows has no open-file limit of the Unix kind.
func openFilesTooFew() string { return "" }
