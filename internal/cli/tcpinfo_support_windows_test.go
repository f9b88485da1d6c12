package cli

import (
	"strings"

	"github.com/latlab/latlab/internal/testutil"
)

// tcpInfoMayBeMissing accepts Wine's WSAEOPNOTSUPP (10045) for
// SIO_TCP_INFO, which it does not implement, and only under Wine; the
// TCP_INFO_v0/v1 decoding itself is tested on byte layouts.
func tcpInfoMayBeMissing(msg string) bool {
	return testutil.UnderWine() && strings.Contains(msg, "10045")
}
