package netload

import (
	"fmt"
	"net"

	"golang.org/x/sys/windows"
)

// WindowsDSCPNote explains why a Windows socket cannot mark its own
// packets, and what does.
const WindowsDSCPNote = "Windows ignores DSCP set by applications (IP_TOS) unless a QoS policy allows it: " +
	"create a policy for latlab.exe with `latlab knob set qos-dscp` (or gpedit: Policy-based QoS), " +
	"then verify the marks with `latlab pcap dscp` on a capture"

// setDSCP asks for the mark anyway (harmless; honoured where a policy or
// the DisableUserTOSSetting registry value allows it) and says that it is
// not proof of marking.
func setDSCP(c *net.UDPConn, dscp int) *DSCP {
	d := &DSCP{Requested: dscp, Note: WindowsDSCPNote}
	rc, err := c.SyscallConn()
	if err == nil {
		cerr := rc.Control(func(fd uintptr) {
			err = windows.SetsockoptInt(windows.Handle(fd), windows.IPPROTO_IP, windows.IP_TOS, dscp<<2)
		})
		if cerr != nil {
			err = cerr
		}
	}
	if err != nil {
		d.Note = fmt.Sprintf("setsockopt(IP_TOS): %v; %s", err, WindowsDSCPNote)
	}
	return d
}
