package netload

import "net"

// rawSender has nothing to do on Windows: the pacing thread is never held
// there (probe.HoldThread), so the connection's own Write sends.
type rawSender struct{}

func newRawSender(*net.UDPConn) (rawSender, error) { return rawSender{}, nil }

// send declines, so that pace sends with the connection's Write.
func (rawSender) send([]byte) (done bool, err error) { return false, nil }
