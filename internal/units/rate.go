package units

import (
	"fmt"
	"math"
	"strconv"
)

// Bitrate writes bits per second with a decimal unit: "1.250 Gbit/s",
// "12.50 Mbit/s", "8.0 kbit/s", "500 bit/s".
func Bitrate(bps float64) string {
	switch {
	case bps >= 1e9:
		return strconv.FormatFloat(bps/1e9, 'f', 3, 64) + " Gbit/s"
	case bps >= 1e6:
		return strconv.FormatFloat(bps/1e6, 'f', 2, 64) + " Mbit/s"
	case bps >= 1e3:
		return strconv.FormatFloat(bps/1e3, 'f', 1, 64) + " kbit/s"
	}
	return strconv.FormatFloat(bps, 'f', 0, 64) + " bit/s"
}

// BitrateUnit is the unit Bitrate writes bps in, and its size in bit/s:
// the unit of a column or an axis of rates near bps.
func BitrateUnit(bps float64) (string, float64) {
	switch {
	case bps >= 1e9:
		return "Gbit/s", 1e9
	case bps >= 1e6:
		return "Mbit/s", 1e6
	case bps >= 1e3:
		return "kbit/s", 1e3
	}
	return "bit/s", 1
}

// BitrateShort writes bits per second with two decimals in Gbit/s and
// Mbit/s, and "-" for no rate (zero or less): a column of pcap tcp.
func BitrateShort(bps float64) string {
	switch {
	case bps <= 0:
		return "-"
	case bps >= 1e9:
		return fmt.Sprintf("%.2f Gbit/s", bps/1e9)
	case bps >= 1e6:
		return fmt.Sprintf("%.2f Mbit/s", bps/1e6)
	case bps >= 1e3:
		return fmt.Sprintf("%.1f kbit/s", bps/1e3)
	}
	return fmt.Sprintf("%.0f bit/s", bps)
}

// Bytes writes a byte count with a decimal unit: "1.50 GB", "2.00 MB",
// "8.0 kB", "512 B".
func Bytes(n int64) string {
	f := float64(n)
	switch {
	case f >= 1e9:
		return strconv.FormatFloat(f/1e9, 'f', 2, 64) + " GB"
	case f >= 1e6:
		return strconv.FormatFloat(f/1e6, 'f', 2, 64) + " MB"
	case f >= 1e3:
		return strconv.FormatFloat(f/1e3, 'f', 1, 64) + " kB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

// Size writes a byte count in binary units with at most one decimal
// (512 B, 1.5 KiB, 1 GiB), as size limits are set; Bytes is the decimal
// spelling for amounts moved.
func Size(n int64) string {
	s, _ := SizeDecimals(n, 1)
	return s
}

// SizeDecimals writes n as Size does but with up to decimals decimals
// (at least one), and returns the number of bytes the text stands for:
// 1 048 575 bytes is "1024 KiB" to three decimals, which stands for
// 1 048 576.
func SizeDecimals(n int64, decimals int) (string, float64) {
	names := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	f, u := float64(n), 0
	for f >= 1024 && u < len(names)-1 {
		f /= 1024
		u++
	}
	if u == 0 {
		return strconv.FormatInt(n, 10) + " B", float64(n)
	}
	s := Trim(f, decimals)
	v, _ := strconv.ParseFloat(s, 64)
	return s + " " + names[u], math.Ldexp(v, 10*u)
}

// KiBCeil writes a file's size in whole KiB, rounded up as du rounds a
// file's blocks: 1 byte is "1 KiB", 20 000 bytes "20 KiB".
func KiBCeil(n int64) string { return strconv.FormatInt((n+1023)/1024, 10) + " KiB" }
