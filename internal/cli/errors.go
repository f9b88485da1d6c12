package cli

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// UsageError is bad input: a flag value, an argument, an unreadable file.
// latlab exits 2 and prints the message, which names what was wrong and
// what is accepted.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError.
func Usagef(format string, a ...any) error {
	return &UsageError{fmt.Errorf(format, a...)}
}

// Usage wraps err as a UsageError (nil stays nil).
func Usage(err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{err}
}

// ExpectationError is an expectation set by the user (--expect...) that
// the measurement or analysis did not meet; latlab exits 1.
type ExpectationError struct{ Msg string }

func (e *ExpectationError) Error() string { return e.Msg }

var (
	reNumFlag = regexp.MustCompile(`^invalid argument "(.*)" for "(.*)" flag: strconv\.Parse(Int|Uint|Float|Bool): parsing ".*": (invalid syntax|value out of range)$`)
	reFlag    = regexp.MustCompile(`^invalid argument "(.*)" for "(.*)" flag: (.*)$`)
)

// flagError turns pflag's messages into latlab's one-line form.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	if m := reNumFlag.FindStringSubmatch(msg); m != nil {
		want := "a whole number"
		switch {
		case m[3] == "Float":
			want = "a number"
		case m[3] == "Bool":
			want = "true or false"
		case m[4] == "value out of range":
			want = "a whole number in range"
		}
		return Usagef("invalid value %q for %s: want %s", m[1], flagName(m[2]), want)
	}
	if m := reFlag.FindStringSubmatch(msg); m != nil {
		return Usagef("invalid value %q for %s: %s", m[1], flagName(m[2]), m[3])
	}
	return Usagef("%s (see '%s --help')", msg, c.CommandPath())
}

// flagName turns pflag's "-d, --duration" into "--duration".
func flagName(s string) string {
	if i := strings.LastIndex(s, ", "); i >= 0 {
		return s[i+2:]
	}
	return s
}

func isCobraUsage(err error) bool {
	m := err.Error()
	return strings.HasPrefix(m, "unknown command") || strings.HasPrefix(m, "unknown flag") ||
		strings.HasPrefix(m, "unknown shorthand flag") || strings.Contains(m, "accepts ") ||
		strings.HasPrefix(m, "requires at least") || strings.HasPrefix(m, "flag needs an argument") ||
		strings.HasPrefix(m, "required flag") || strings.HasPrefix(m, "invalid argument")
}

// oneLine keeps error output to a single line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
