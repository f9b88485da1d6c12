package netload

import (
	"fmt"
	"net"

	"github.com/latlab/latlab/internal/badinput"
)

// RouteInterface names the local interface the OS uses to reach host, by
// connecting a UDP socket (no packet is sent) and finding the interface
// that holds the chosen source address.
func RouteInterface(host string) (name string, loopback bool, err error) {
	c, err := net.Dial("udp", net.JoinHostPort(host, "9"))
	if err != nil {
		return "", false, badinput.Errorf("no route to %s: %v", host, err)
	}
	local := c.LocalAddr().(*net.UDPAddr).IP
	c.Close()
	ifs, err := net.Interfaces()
	if err != nil {
		return "", local.IsLoopback(), fmt.Errorf("list interfaces: %w", err)
	}
	for _, ifc := range ifs {
		addrs, _ := ifc.Addrs()
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.Equal(local) {
				return ifc.Name, ifc.Flags&net.FlagLoopback != 0 || local.IsLoopback(), nil
			}
		}
	}
	return "", local.IsLoopback(), nil
}
