package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"
)

// JSONWords says what is wrong with a piece of JSON (a server's answer, a
// host's, a user's arguments) in the words of JSON: the field, what it is,
// what goes there ("capabilities.tools is a string where an object goes").
// encoding/json's own errors name Go types ("cannot unmarshal string into
// Go struct field InitializeResult.capabilities.tools of type
// mcp.ToolsCapability"), which mean nothing to whoever wrote the JSON and
// are run-mcp's insides; a message never passes them on.
func JSONWords(err error) string {
	var typ *json.UnmarshalTypeError
	var syn *json.SyntaxError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Sprintf("%s is %s where %s goes", typ.Field, jsonValueKind(typ.Value), JSONKind(typ.Type))
	case errors.As(err, &typ):
		return fmt.Sprintf("it is %s, not %s", jsonValueKind(typ.Value), JSONKind(typ.Type))
	case errors.As(err, &syn) && strings.HasPrefix(syn.Error(), "unexpected end of JSON input"):
		return "the JSON ends before it is complete"
	case errors.As(err, &syn):
		return fmt.Sprintf("%s (at byte %d)", strings.TrimPrefix(syn.Error(), "json: "), syn.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "the JSON ends before it is complete"
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if goWords.MatchString(msg) {
		// An error of a library's own decoder that names its types: say
		// what can be said without them.
		return "it does not have the shape the protocol gives it"
	}
	return msg
}

// goWords finds a Go type in a message: "Go struct field", "Go value of
// type", a qualified name (mcp.TextContent), interface {}, struct {.
var goWords = regexp.MustCompile(`Go (struct field|value)|\b[a-z][a-z0-9]*\.[A-Z][A-Za-z0-9]+\b|interface \{\}|struct \{|map\[string\]`)

// jsonValueKind is encoding/json's name of a JSON value ("number 1.5",
// "bool", "array"), as prose.
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

// JSONKind is the JSON a value of Go type t takes, as prose ("a string",
// "a whole number", "an object"), for a message about a decoded field.
func JSONKind(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another kind of value"
}
