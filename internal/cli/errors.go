package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/suggest"
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

// isUsage reports whether err is bad input: a UsageError, or the
// badinput.Error of a domain package. It looks at types only: every
// way cobra and pflag reject a command line reaches latlab as a
// UsageError (flags through flagError, arguments through the validators
// that finish installs, required flags through its pre-run check), and
// pflag's own error types are accepted in case one arrives unwrapped. The
// wording of their messages never decides an exit code.
func isUsage(err error) bool {
	var (
		ue *UsageError
		ne *pflag.NotExistError
		ve *pflag.ValueRequiredError
		ie *pflag.InvalidValueError
		se *pflag.InvalidSyntaxError
	)
	return errors.As(err, &ue) || badinput.Is(err) || errors.As(err, &ne) || errors.As(err, &ve) ||
		errors.As(err, &ie) || errors.As(err, &se)
}

// flagError turns pflag's errors into latlab's one-line form, by their
// type: an unknown flag (with the nearest names), a flag without its value,
// a value its type rejects (saying what it accepts), bad flag syntax.
func flagError(c *cobra.Command, err error) error {
	var (
		ne *pflag.NotExistError
		ve *pflag.ValueRequiredError
		ie *pflag.InvalidValueError
	)
	switch {
	case c.HasAvailableSubCommands() && len(c.Flags().Args()) > 0 && c.ValidateArgs(c.Flags().Args()) != nil:
		// "latlab slep --samples 5": the command name is what is wrong,
		// not the flag that only the intended command has.
		return unknownCommand(c, c.Flags().Args()[0])
	case errors.As(err, &ie):
		return Usagef("invalid value %q for --%s: %s", ie.GetValue(), ie.GetFlag().Name, accepted(errors.Unwrap(ie)))
	case errors.As(err, &ve):
		f := ve.GetFlag()
		return Usagef("--%s needs a value: %s (see '%s --help')", f.Name, f.Usage, c.CommandPath())
	case errors.As(err, &ne):
		name := ne.GetSpecifiedName()
		if sn := ne.GetSpecifiedShortnames(); sn == name {
			return Usagef("unknown flag -%s (see '%s --help')", name, c.CommandPath())
		} else if sn != "" {
			return Usagef("unknown flag -%s in -%s (see '%s --help')", name, ne.GetSpecifiedShortnames(), c.CommandPath())
		}
		if s := flagSuggestions(c, name); len(s) > 0 {
			return Usagef("unknown flag --%s; did you mean %s? (see '%s --help')", name, strings.Join(s, " or "), c.CommandPath())
		}
		return Usagef("unknown flag --%s (see '%s --help')", name, c.CommandPath())
	}
	return Usagef("%s (see '%s --help')", oneLine(err.Error()), c.CommandPath())
}

// accepted says what a flag's value must be when its Set rejected it:
// strconv's errors become the kind of number wanted, latlab's own values
// already say it.
func accepted(cause error) string {
	var ne *strconv.NumError
	if !errors.As(cause, &ne) {
		if cause == nil {
			return "not accepted"
		}
		return cause.Error()
	}
	switch {
	case ne.Func == "ParseBool":
		return "want true or false"
	case ne.Func == "ParseFloat":
		return "want a number"
	case errors.Is(ne.Err, strconv.ErrRange):
		return "want a whole number in range"
	}
	return "want a whole number"
}

// flagSuggestions are the flags of c whose names are near name: a typo
// (edit distance up to 2) or a prefix.
func flagSuggestions(c *cobra.Command, name string) []string {
	var out []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if suggest.Distance(name, f.Name) <= 2 || (len(name) >= 3 && strings.HasPrefix(f.Name, name)) {
			out = append(out, "--"+f.Name)
		}
	})
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}

// oneLine keeps error output to a single line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
