package netload

import (
	"net"
	"testing"
	"time"
)

// The raw sender writes whole datagrams to the connected peer.
func TestRawSenderSends(t *testing.T) {
	l, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.DialUDP("udp", nil, l.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := newRawSender(c)
	if err != nil {
		t.Fatal(err)
	}
	if done, err := s.send([]byte("paced")); !done || err != nil {
		t.Fatalf("send: done %v, %v", done, err)
	}
	_ = l.SetReadDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, 64)
	n, err := l.Read(b)
	if err != nil || string(b[:n]) != "paced" {
		t.Fatalf("read %q, %v", b[:n], err)
	}
}
