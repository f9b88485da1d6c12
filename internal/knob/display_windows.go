package knob

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	user32                          = windows.NewLazySystemDLL("user32.dll")
	procGetDisplayConfigBufferSizes = user32.NewProc("GetDisplayConfigBufferSizes")
	procQueryDisplayConfig          = user32.NewProc("QueryDisplayConfig")
)

const (
	qdcOnlyActivePaths = 0x2
	modeInfoSize       = 64 // sizeof(DISPLAYCONFIG_MODE_INFO)
)

// QueryDisplayPaths asks QueryDisplayConfig for the active paths and the
// scaling each one really uses.
func QueryDisplayPaths() ([]DisplayPath, error) {
	if err := procQueryDisplayConfig.Find(); err != nil {
		return nil, fmt.Errorf("QueryDisplayConfig: %w", err)
	}
	for try := 0; try < 3; try++ {
		var np, nm uint32
		if rc, _, _ := procGetDisplayConfigBufferSizes.Call(qdcOnlyActivePaths, uintptr(unsafe.Pointer(&np)), uintptr(unsafe.Pointer(&nm))); rc != 0 {
			return nil, fmt.Errorf("GetDisplayConfigBufferSizes: %w", windows.Errno(rc))
		}
		if np == 0 {
			return nil, nil
		}
		paths := make([]byte, int(np)*PathInfoSize)
		modes := make([]byte, int(nm+1)*modeInfoSize)
		rc, _, _ := procQueryDisplayConfig.Call(qdcOnlyActivePaths, uintptr(unsafe.Pointer(&np)), uintptr(unsafe.Pointer(&paths[0])),
			uintptr(unsafe.Pointer(&nm)), uintptr(unsafe.Pointer(&modes[0])), 0)
		if windows.Errno(rc) == windows.ERROR_INSUFFICIENT_BUFFER {
			continue // the configuration changed between the two calls
		}
		if rc != 0 {
			return nil, fmt.Errorf("QueryDisplayConfig: %w", windows.Errno(rc))
		}
		return ParsePathInfos(paths, int(np))
	}
	return nil, fmt.Errorf("QueryDisplayConfig: the display configuration kept changing")
}
