package netload

import "github.com/latlab/latlab/internal/winapi"

// underWine reports whether ntdll exports wine_get_version, which only
// Wine's does: the Windows gaps tolerated by these tests are Wine's, and a
// real Windows must not hit them.
func underWine() bool {
	return winapi.UnderWine()
}
