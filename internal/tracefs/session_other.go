//go:build !linux

package tracefs

import "context"

// Session is a tracing session (Linux only).
type Session struct{ Name, Dir string }

// Open returns ErrUnsupported off Linux.
func Open(Options) (*Session, error) { return nil, ErrUnsupported }

// Format is never found off Linux.
func (s *Session) Format(system, name string) *Format { return nil }

// Drain does nothing off Linux.
func (s *Session) Drain(func(Event)) (int, error) { return 0, ErrUnsupported }

// Follow does nothing off Linux.
func (s *Session) Follow(context.Context, func(Event)) error { return ErrUnsupported }

// Stop does nothing off Linux.
func (s *Session) Stop() error { return nil }

// Close does nothing off Linux.
func (s *Session) Close() error { return nil }

// Lost is 0 off Linux.
func (s *Session) Lost() int64 { return 0 }

// Clock names the session's clock.
func (s *Session) Clock() string { return "" }
