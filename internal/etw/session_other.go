//go:build !windows || !(amd64 || arm64)

package etw

// Session is a real-time trace session; on this platform none can start.
type Session struct{ Name string }

// StartKernel fails: ETW sessions need 64-bit Windows.
func StartKernel(uint32) (*Session, error) { return nil, ErrUnsupported }

// UnderWine is false off Windows.
func UnderWine() bool { return false }

// Elevated is false where there is no ETW.
func Elevated() bool { return false }

// QPC is 0 where there is no ETW session clock.
func QPC() int64 { return 0 }

// LoadedModules fails off Windows.
func LoadedModules() ([]Module, error) { return nil, ErrUnsupported }

// Open fails.
func (s *Session) Open(func(*Event)) error { return ErrUnsupported }

// Process fails.
func (s *Session) Process() error { return ErrUnsupported }

// Stop does nothing.
func (s *Session) Stop() error { return nil }

// Close does nothing.
func (s *Session) Close() {}

// Release does nothing.
func (s *Session) Release() {}

// Frequency is 0.
func (s *Session) Frequency() int64 { return 0 }

// Lost is 0.
func (s *Session) Lost() (events, buffers uint32) { return 0, 0 }

// StartProvider fails: ETW sessions need 64-bit Windows.
func StartProvider(string, GUID, uint8, uint64) (*Session, error) { return nil, ErrUnsupported }
