package winapi

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/windows"
)

// procAdjustTokenPrivileges is called by hand, not through mkwinsyscall:
// the generated wrapper (and golang.org/x/sys/windows's) reads the last
// error only when the call fails, and AdjustTokenPrivileges succeeds when
// it enabled none, or only some, of the privileges asked for; it says so
// only in the last error, ERROR_NOT_ALL_ASSIGNED (Microsoft,
// AdjustTokenPrivileges: "If the function succeeds, the return value is
// nonzero. To determine whether the function adjusted all of the specified
// privileges, call GetLastError").
var procAdjustTokenPrivileges = modadvapi32.NewProc("AdjustTokenPrivileges")

// AdjustTokenPrivileges enables the privileges of newstate in token and
// fails with windows.ERROR_NOT_ALL_ASSIGNED when the token lacks one.
func AdjustTokenPrivileges(token windows.Token, newstate *windows.Tokenprivileges) error {
	r1, _, e := procAdjustTokenPrivileges.Call(uintptr(token), 0, uintptr(unsafe.Pointer(newstate)), 0, 0, 0)
	return adjustResult(r1, e)
}

// adjustResult is AdjustTokenPrivileges's outcome from its return value
// and the last error it left.
func adjustResult(r1 uintptr, lastErr error) error {
	if r1 == 0 {
		var en windows.Errno
		if errors.As(lastErr, &en) && en != 0 {
			return en
		}
		return windows.ERROR_INVALID_PARAMETER
	}
	if errors.Is(lastErr, windows.ERROR_NOT_ALL_ASSIGNED) {
		return windows.ERROR_NOT_ALL_ASSIGNED
	}
	return nil
}
