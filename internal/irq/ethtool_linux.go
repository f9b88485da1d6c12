package irq

import (
	"github.com/safchain/ethtool"
)

// readRSS asks the driver through ethtool ioctls (ETHTOOL_GCHANNELS,
// ETHTOOL_GRXFHINDIR, ETHTOOL_GCOALESCE). Drivers that do not implement one
// answer EOPNOTSUPP; that is recorded, not treated as a failure.
func readRSS(ifname string) *RSS {
	r := &RSS{Source: "ethtool"}
	e, err := ethtool.NewEthtool()
	if err != nil {
		r.Errors = append(r.Errors, "ethtool: "+err.Error())
		return r
	}
	defer e.Close()
	if ch, err := e.GetChannels(ifname); err == nil {
		r.Channels = map[string]uint32{
			"rx": ch.RxCount, "tx": ch.TxCount, "other": ch.OtherCount, "combined": ch.CombinedCount,
			"max_rx": ch.MaxRx, "max_tx": ch.MaxTx, "max_other": ch.MaxOther, "max_combined": ch.MaxCombined,
		}
	} else {
		r.Errors = append(r.Errors, "channels: "+err.Error())
	}
	if in, err := e.GetIndir(ifname); err == nil && in.Size > 0 && int(in.Size) <= len(in.RingIndex) {
		r.IndirTable = append([]uint32(nil), in.RingIndex[:in.Size]...)
	} else if err != nil {
		r.Errors = append(r.Errors, "RSS indirection table: "+err.Error())
	}
	if c, err := e.GetCoalesce(ifname); err == nil {
		m := map[string]uint32{
			"rx-usecs": c.RxCoalesceUsecs, "rx-frames": c.RxMaxCoalescedFrames,
			"tx-usecs": c.TxCoalesceUsecs, "tx-frames": c.TxMaxCoalescedFrames,
			"adaptive-rx": c.UseAdaptiveRxCoalesce, "adaptive-tx": c.UseAdaptiveTxCoalesce,
		}
		r.Coalesce = m
	} else {
		r.Errors = append(r.Errors, "coalescing: "+err.Error())
	}
	return r
}
