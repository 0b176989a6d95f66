// Package snapshot tells an agent what a server's tools, resources, resource
// templates and prompts look like, and what changed between two connections
// (typically before and after a restart that followed an edit).
//
// It owns comparing two listings and wording the result. It must never talk
// to a server, never mutate the listings it is given, and never report
// "none" when anything was added, modified or removed.
package snapshot
