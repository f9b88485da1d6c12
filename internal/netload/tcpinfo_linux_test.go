package netload

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The offsets used to decode tcp_info match the kernel structure as
// golang.org/x/sys/unix defines it.
func TestLinuxTCPInfoOffsets(t *testing.T) {
	var ti unix.TCPInfo
	for name, c := range map[string][2]uintptr{
		"retransmits":   {liRetransmits, unsafe.Offsetof(ti.Retransmits)},
		"snd_mss":       {liSndMss, unsafe.Offsetof(ti.Snd_mss)},
		"unacked":       {liUnacked, unsafe.Offsetof(ti.Unacked)},
		"sacked":        {liSacked, unsafe.Offsetof(ti.Sacked)},
		"lost":          {liLost, unsafe.Offsetof(ti.Lost)},
		"retrans":       {liRetrans, unsafe.Offsetof(ti.Retrans)},
		"rtt":           {liRtt, unsafe.Offsetof(ti.Rtt)},
		"rttvar":        {liRttvar, unsafe.Offsetof(ti.Rttvar)},
		"snd_ssthresh":  {liSndSsthresh, unsafe.Offsetof(ti.Snd_ssthresh)},
		"snd_cwnd":      {liSndCwnd, unsafe.Offsetof(ti.Snd_cwnd)},
		"reordering":    {liReordering, unsafe.Offsetof(ti.Reordering)},
		"total_retrans": {liTotalRetrans, unsafe.Offsetof(ti.Total_retrans)},
		"bytes_acked":   {liBytesAcked, unsafe.Offsetof(ti.Bytes_acked)},
		"min_rtt":       {liMinRtt, unsafe.Offsetof(ti.Min_rtt)},
		"delivery_rate": {liDeliveryRate, unsafe.Offsetof(ti.Delivery_rate)},
		"bytes_sent":    {liBytesSent, unsafe.Offsetof(ti.Bytes_sent)},
		"bytes_retrans": {liBytesRetrans, unsafe.Offsetof(ti.Bytes_retrans)},
		"snd_wnd":       {liSndWnd, unsafe.Offsetof(ti.Snd_wnd)},
	} {
		if c[0] != c[1] {
			t.Errorf("%s at %d, unix.TCPInfo has it at %d", name, c[0], c[1])
		}
	}
}
