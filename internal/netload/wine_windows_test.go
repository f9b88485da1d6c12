package netload

import "golang.org/x/sys/windows"

// underWine reports whether ntdll exports wine_get_version, which only
// Wine's does: the Windows gaps tolerated by these tests are Wine's, and a
// real Windows must not hit them.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
