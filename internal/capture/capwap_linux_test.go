package capture

import "testing"

func TestCAPWAPMatchesTshark(t *testing.T) {
	checkTshark(t, named{"capwap", capwapFile(t)})
}
