// Package jsonscan walks JSON without decoding it: it finds the members of
// an object and the elements of an array as byte slices of the input, and
// unquotes a string in one pass. It exists for messages of many megabytes,
// where encoding/json validates the whole input before decoding it and then
// scans each nested value again each time a level is decoded separately, and
// for the agent's hot path, where each small call message would otherwise be
// decoded several times by reflection.
//
// Every function here accepts a subset of what encoding/json accepts and,
// where it accepts, gives what encoding/json would. When it reports false
// the caller falls back to encoding/json, which then gives the real error
// (or the value, for the rare inputs this package leaves to it: keys with
// escapes, nesting deeper than maxDepth).
package jsonscan
