package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// jsonWords says what is wrong with a piece of JSON in the words of JSON
// (an array where an object goes, a string where a number goes), never
// encoding/json's, which name Go types ("map[string]interface {}") that
// mean nothing to whoever wrote the JSON.
func jsonWords(err error) string {
	var typ *json.UnmarshalTypeError
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Sprintf("%s is %s where %s goes", typ.Field, jsonValueKind(typ.Value), jsonGoKind(typ.Type.Kind().String()))
	case errors.As(err, &typ):
		return fmt.Sprintf("it is %s, not %s", jsonValueKind(typ.Value), jsonGoKind(typ.Type.Kind().String()))
	case errors.As(err, &syn):
		return fmt.Sprintf("%s (at byte %d)", syn.Error(), syn.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "the JSON ends before it is complete"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// jsonValueKind is encoding/json's name of a JSON value, as prose.
func jsonValueKind(v string) string {
	kind, _, _ := strings.Cut(v, " ")
	switch kind {
	case "array", "object":
		return "an " + kind
	case "number", "string":
		return "a " + kind
	case "bool":
		return "true or false"
	}
	return kind
}

// jsonGoKind is the JSON a Go kind takes.
func jsonGoKind(k string) string {
	switch k {
	case "map", "struct":
		return "an object"
	case "slice", "array":
		return "an array"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	}
	return "a number"
}
