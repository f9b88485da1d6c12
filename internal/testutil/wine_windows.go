package testutil

import "github.com/latlab/latlab/internal/winapi"

// UnderWine reports whether the tests run under Wine: ntdll exports
// wine_get_version, which only Wine's does. A test tolerates a gap of
// Windows only when UnderWine says it is Wine's (a procedure with nothing
// behind it, a folder its NT layer cannot remove): a real Windows must
// not hit it.
func UnderWine() bool { return winapi.UnderWine() }
