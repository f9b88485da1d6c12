package dpcisr

import (
	"context"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
)

// Off Windows the capture is refused before anything else is checked.
func TestRunCaptureIsWindowsOnly(t *testing.T) {
	_, err := RunCapture(context.Background(), CaptureOptions{})
	if !badinput.Is(err) || !strings.Contains(err.Error(), "dpcisr capture is Windows-only") {
		t.Errorf("%v", err)
	}
}
