package netload

import "strings"

// tcpInfoMayBeMissing accepts Wine's WSAEOPNOTSUPP (10045) for
// SIO_TCP_INFO, which it does not implement; the TCP_INFO_v0/v1 decoding
// itself is tested on captured byte layouts.
func tcpInfoMayBeMissing(msg string) bool { return strings.Contains(msg, "10045") }
