package mcpserver

import (
	"strings"
	"testing"
)

func TestShortenQuotes_SchemaError(t *testing.T) {
	msg := `validating "arguments": validating root: validating /properties/mode: maxLength: "` +
		strings.Repeat(`\x01`, 3000) + `" contains 3000 Unicode code points, more than 32`
	want := `validating "arguments": validating root: validating /properties/mode: maxLength: "` +
		strings.Repeat(`\x01`, 64) + `"… (3000 bytes) contains 3000 Unicode code points, more than 32`
	if got := shortenQuotes(msg); got != want {
		t.Fatalf("shortenQuotes =\n%s\nwant\n%s", got, want)
	}
}
