// Package toolcheck checks a tool call against the target's own tool list
// before anything is sent: an unknown name gets a "did you mean" and the list
// of names, missing required arguments are named. It only reads the listing;
// it never calls a target.
package toolcheck
