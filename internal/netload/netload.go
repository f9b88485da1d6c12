// Package netload generates network load and measures what it meets: a
// paced UDP generator with per-packet round-trip times, a TCP bulk sender
// that samples the kernel's TCP state of its socket, and the servers they
// talk to (UDP echo, TCP discard, TCP sink). It never prints: commands turn
// its results into text and result documents.
package netload

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseSize parses a byte count: 1500, 64k, 10MB, 10MiB, 1.5GB. Decimal
// prefixes are powers of 1000 (as iperf3 and network tools report
// throughput), binary ones (KiB, MiB, GiB) powers of 1024.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty size: accepted e.g. 1500, 64KB, 10MB, 10MiB")
	}
	i := len(t)
	for i > 0 && !(t[i-1] >= '0' && t[i-1] <= '9' || t[i-1] == '.') {
		i--
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("invalid size %q: accepted e.g. 1500, 64KB, 10MB, 10MiB", s)
	}
	mult := map[string]float64{
		"": 1, "b": 1, "B": 1,
		"k": 1e3, "K": 1e3, "KB": 1e3, "kB": 1e3,
		"M": 1e6, "MB": 1e6, "m": 1e6,
		"G": 1e9, "GB": 1e9, "g": 1e9,
		"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
	}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("invalid size %q: unknown unit %q (accepted B, KB, MB, GB, KiB, MiB, GiB)", s, unit)
	}
	if v < 0 {
		return 0, fmt.Errorf("invalid size %q: must not be negative", s)
	}
	b := v * mult
	if b > 1<<50 {
		return 0, fmt.Errorf("invalid size %q: larger than 1 PiB", s)
	}
	return int64(math.Round(b)), nil
}
