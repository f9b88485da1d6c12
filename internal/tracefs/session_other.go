//go:build !linux

package tracefs

import "context"

// Session is a tracing session (Linux only).
type Session struct{ Name, Dir string }

// Open returns ErrUnsupported off Linux.
func Open(Options) (*Session, error) { return nil, ErrUnsupported }

// Follow does nothing off Linux.
func (s *Session) Follow(context.Context, func(Event)) error { return ErrUnsupported }

// Freeze does nothing off Linux.
func (s *Session) Freeze() error { return nil }

// Close does nothing off Linux.
func (s *Session) Close() error { return nil }

// Lost is 0 off Linux.
func (s *Session) Lost() int64 { return 0 }

// Leftover is tracing a killed session left behind (Linux only).
type Leftover struct{}

func (Leftover) String() string { return "" }

// RemoveLeftovers has nothing to remove off Linux.
func RemoveLeftovers() []Leftover { return nil }
