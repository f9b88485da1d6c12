package netload

import (
	"context"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
)

// --etw on Linux is bad input, refused before any connection is made.
func TestTCPETWIsWindowsOnly(t *testing.T) {
	r, err := RunTCP(context.Background(), TCPOptions{To: "127.0.0.1:9", Size: 1, ETW: true})
	if r != nil || !badinput.Is(err) || !strings.HasPrefix(err.Error(), "--etw is Windows-only") {
		t.Fatalf("result %v, err %v", r, err)
	}
}
