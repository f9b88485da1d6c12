package knob

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/winapi"
)

// ReadRSSState runs its commands by System32 path and never fails as a
// whole: what a command could not say is in Errors (under Wine,
// PowerShell runs no script).
func TestReadRSSState(t *testing.T) {
	s, err := ReadRSSState()
	if err != nil || s == nil {
		t.Fatalf("ReadRSSState: %v", err)
	}
	if winapi.UnderWine() && !strings.Contains(strings.Join(s.Errors, " "), "not available under Wine") {
		t.Errorf("errors %v", s.Errors)
	}
	t.Logf("global %q, %d adapters, errors %v", s.GlobalRSS(), len(s.Adapters), s.Errors)
}
