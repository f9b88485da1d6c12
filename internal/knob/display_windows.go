package knob

import (
	"fmt"

	"golang.org/x/sys/windows"

	"github.com/latlab/latlab/internal/winapi"
)

const (
	qdcOnlyActivePaths = 0x2
	modeInfoSize       = 64 // sizeof(DISPLAYCONFIG_MODE_INFO)
)

// QueryDisplayPaths asks QueryDisplayConfig for the active paths and the
// scaling each one really uses.
func QueryDisplayPaths() ([]DisplayPath, error) {
	for try := 0; try < 3; try++ {
		var np, nm uint32
		if err := winapi.GetDisplayConfigBufferSizes(qdcOnlyActivePaths, &np, &nm); err != nil {
			return nil, fmt.Errorf("GetDisplayConfigBufferSizes: %w", err)
		}
		if np == 0 {
			return nil, nil
		}
		paths := make([]byte, int(np)*PathInfoSize)
		modes := make([]byte, int(nm+1)*modeInfoSize)
		err := winapi.QueryDisplayConfig(qdcOnlyActivePaths, &np, &paths[0], &nm, &modes[0], 0)
		if err == windows.ERROR_INSUFFICIENT_BUFFER {
			continue // the configuration changed between the two calls
		}
		if err != nil {
			return nil, fmt.Errorf("QueryDisplayConfig: %w", err)
		}
		return ParsePathInfos(paths, int(np))
	}
	return nil, fmt.Errorf("QueryDisplayConfig: the display configuration kept changing")
}
