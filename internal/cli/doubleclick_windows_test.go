package cli

import "testing"

// The real parent lookup runs (Toolhelp snapshot) and, under `go test`,
// whose parent is go.exe or Wine's loader, must not claim Explorer.
func TestStartedByExplorerFromTest(t *testing.T) {
	if startedByExplorer() {
		t.Fatal("a test process was taken for a double-click")
	}
}
