// Package jsonscan walks the top level of a JSON object that is already
// known to be valid (a decoder checked it), without decoding it: the hot
// paths that only need to route a message or check a few keys then pay one
// linear scan and no allocation, where encoding/json would validate again,
// reflect and copy.
package jsonscan
