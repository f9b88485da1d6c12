// Package badinput marks an error as the user's input being wrong: a flag
// value out of range, a file that cannot be read or is not what it should
// be, a name that matches nothing. Domain packages return it; the command
// line exits 2 on it and prints its message, which says what was wrong
// and what is accepted.
package badinput

import (
	"errors"
	"fmt"
)

// Error is bad input; Err says what was wrong.
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an Error with fmt.Errorf's message (%w wraps).
func Errorf(format string, a ...any) error { return &Error{fmt.Errorf(format, a...)} }

// Wrap marks err as bad input; nil stays nil.
func Wrap(err error) error {
	if err == nil {
		return nil
	}
	return &Error{err}
}

// Is reports whether err is, or wraps, an Error.
func Is(err error) bool {
	var e *Error
	return errors.As(err, &e)
}
