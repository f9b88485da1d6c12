// Package winapi is latlab's one table of Windows procedures outside
// golang.org/x/sys/windows. The declarations are the //sys lines of
// syscall_windows.go; mkwinsyscall turns them into zsyscall_windows.go
// (go generate ./internal/winapi), and a test fails when that file is not
// what the declarations generate.
//
// Procedures that return their status (NTSTATUS, MMRESULT, PDH_STATUS,
// LSTATUS) instead of setting the thread's last error return it as an
// error of its own type: windows.NTStatus for NTSTATUS, syscall.Errno for
// the others. A procedure marked "?" may be missing from its DLL (older
// builds, Wine); its lookup error is then a *windows.DLLError.
package winapi

// Here rather than in syscall_windows.go, so that go generate finds it on
// every host.
//go:generate go run golang.org/x/sys/windows/mkwinsyscall -output zsyscall_windows.go syscall_windows.go
