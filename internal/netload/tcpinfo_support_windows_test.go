package netload

import "strings"

// tcpInfoMayBeMissing accepts Wine's WSAEOPNOTSUPP (10045) for
// SIO_TCP_INFO, which it does not implement, and only under Wine; the
// TCP_INFO_v0/v1 decoding itself is tested on byte layouts.
func tcpInfoMayBeMissing(msg string) bool { return underWine() && strings.Contains(msg, "10045") }
