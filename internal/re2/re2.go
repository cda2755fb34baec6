// Package re2 compiles the regular expressions agents give (until, grep,
// search and success patterns) with errors that say what RE2, Go's regexp
// syntax, lacks and what to write instead: agents often reach for Perl or
// PCRE features (look-around, backreferences) that RE2 leaves out to match
// in linear time.
package re2

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"
)

// Compile is regexp.Compile whose error, for syntax RE2 does not have,
// says so and suggests what to write instead.
func Compile(expr string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, explain(err)
	}
	return re, nil
}

func explain(err error) error {
	var se *syntax.Error
	if !errors.As(err, &se) {
		return err
	}
	hint := ""
	switch {
	case strings.HasPrefix(se.Expr, "(?<=") || strings.HasPrefix(se.Expr, "(?<!"):
		hint = "RE2 has no look-behind ((?<=...), (?<!...)): match the preceding text too and capture the part you want, e.g. `price: (\\d+)` instead of `(?<=price: )\\d+`, or use \\b for a word boundary"
	case strings.HasPrefix(se.Expr, "(?=") || strings.HasPrefix(se.Expr, "(?!"):
		hint = "RE2 has no look-ahead ((?=...), (?!...)): match the following text too and capture the part you want, e.g. `(\\d+) ms` instead of `\\d+(?= ms)`, or use \\b or $ for a boundary"
	case strings.HasPrefix(se.Expr, "(?>"):
		hint = "RE2 has no atomic groups ((?>...)); a plain group (?:...) matches the same text, RE2 never backtracks"
	case se.Code == syntax.ErrInvalidEscape && len(se.Expr) == 2 && se.Expr[1] >= '1' && se.Expr[1] <= '9':
		hint = "RE2 has no backreferences (\\1): spell the repeated text out, or match more and compare the captures yourself"
	case se.Code == syntax.ErrMissingParen || se.Code == syntax.ErrUnexpectedParen || se.Code == syntax.ErrMissingBracket ||
		se.Code == syntax.ErrMissingRepeatArgument || se.Code == syntax.ErrInvalidRepeatOp:
		hint = "escape literal characters to match them: \\( \\) \\[ \\] \\* \\+ \\? \\$"
	}
	if hint == "" {
		return err
	}
	return &Error{Err: err, Hint: hint}
}

// Error is a syntax error with advice for the agent.
type Error struct {
	Err  error
	Hint string
}

func (e *Error) Error() string { return e.Err.Error() + "; " + e.Hint }
func (e *Error) Unwrap() error { return e.Err }
