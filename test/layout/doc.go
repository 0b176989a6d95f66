// Package layout holds the test that AGENTS.md's map of the repository is
// true: its Layout names every package, and its Dependency direction graph
// is exactly the imports between this module's packages, as go list reports
// them for linux, darwin and windows. A change that adds a package or an
// import between packages updates AGENTS.md in the same commit, or fails
// here.
package layout
