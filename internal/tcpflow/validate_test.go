package tcpflow

import (
	"testing"

	"github.com/latlab/latlab/internal/badinput"
)

func TestOptionsValidate(t *testing.T) {
	for top, ok := range map[int]bool{AllConnections: true, 0: true, 10: true, AllConnections - 1: false} {
		err := Options{Top: top}.Validate()
		if (err == nil) != ok || (err != nil && !badinput.Is(err)) {
			t.Errorf("Top %d: %v", top, err)
		}
	}
}
