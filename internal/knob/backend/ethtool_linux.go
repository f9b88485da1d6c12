package backend

import (
	"errors"
	"fmt"

	"github.com/safchain/ethtool"
	"golang.org/x/sys/unix"
)

// ethtoolBackend reads and writes coalescing through the ethtool ioctls.
// It acts on real interfaces only: under a fixture --root it refuses, so
// tests never change this machine's NICs by accident.
type ethtoolBackend struct{ root string }

// NewEthtool is the ethtool backend: coalescing settings of the network
// interfaces, read and set through ethtool ioctls.
func NewEthtool(root string) Backend { return ethtoolBackend{root: root} }

// Available says why the backend cannot work here: under a fixture --root
// the interfaces the tree names are not this machine's, so there is
// nothing to ask ethtool about.
func (b ethtoolBackend) Available() error {
	if b.root != "/" && b.root != "" {
		return fmt.Errorf("coalescing talks to the real interface through ethtool, which is %w under --root %s", ErrUnavailable, b.root)
	}
	return nil
}

func (b ethtoolBackend) open() (*ethtool.Ethtool, error) {
	if err := b.Available(); err != nil {
		return nil, err
	}
	return ethtool.NewEthtool()
}

func ethErr(iface string, err error) error {
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOTSUP) {
		return fmt.Errorf("%s: coalescing %w by the driver", iface, ErrNotSupported)
	}
	if errors.Is(err, unix.ENODEV) {
		return fmt.Errorf("%s: no such interface", iface)
	}
	return fmt.Errorf("%s: ethtool: %w", iface, err)
}

func (b ethtoolBackend) Read(l Loc) (Value, error) {
	e, err := b.open()
	if err != nil {
		return Value{}, err
	}
	defer e.Close()
	c, err := e.GetCoalesce(l.Path)
	if err != nil {
		return Value{}, ethErr(l.Path, err)
	}
	return fromEthtool(c).Value(), nil
}

func (b ethtoolBackend) Write(l Loc, v Value) error {
	c, err := DecodeCoalesce(v)
	if err != nil {
		return err
	}
	e, err := b.open()
	if err != nil {
		return err
	}
	defer e.Close()
	if _, err := e.SetCoalesce(l.Path, toEthtool(c)); err != nil {
		return ethErr(l.Path, err)
	}
	return nil
}

func (b ethtoolBackend) CheckWrite(l Loc) error {
	_, err := b.Read(l)
	return err
}

func fromEthtool(c ethtool.Coalesce) Coalesce {
	return Coalesce{c.RxCoalesceUsecs, c.RxMaxCoalescedFrames, c.RxCoalesceUsecsIrq, c.RxMaxCoalescedFramesIrq,
		c.TxCoalesceUsecs, c.TxMaxCoalescedFrames, c.TxCoalesceUsecsIrq, c.TxMaxCoalescedFramesIrq,
		c.StatsBlockCoalesceUsecs, c.UseAdaptiveRxCoalesce, c.UseAdaptiveTxCoalesce,
		c.PktRateLow, c.RxCoalesceUsecsLow, c.RxMaxCoalescedFramesLow, c.TxCoalesceUsecsLow, c.TxMaxCoalescedFramesLow,
		c.PktRateHigh, c.RxCoalesceUsecsHigh, c.RxMaxCoalescedFramesHigh, c.TxCoalesceUsecsHigh, c.TxMaxCoalescedFramesHigh,
		c.RateSampleInterval}
}

func toEthtool(c Coalesce) ethtool.Coalesce {
	return ethtool.Coalesce{RxCoalesceUsecs: c[0], RxMaxCoalescedFrames: c[1], RxCoalesceUsecsIrq: c[2], RxMaxCoalescedFramesIrq: c[3],
		TxCoalesceUsecs: c[4], TxMaxCoalescedFrames: c[5], TxCoalesceUsecsIrq: c[6], TxMaxCoalescedFramesIrq: c[7],
		StatsBlockCoalesceUsecs: c[8], UseAdaptiveRxCoalesce: c[9], UseAdaptiveTxCoalesce: c[10],
		PktRateLow: c[11], RxCoalesceUsecsLow: c[12], RxMaxCoalescedFramesLow: c[13], TxCoalesceUsecsLow: c[14], TxMaxCoalescedFramesLow: c[15],
		PktRateHigh: c[16], RxCoalesceUsecsHigh: c[17], RxMaxCoalescedFramesHigh: c[18], TxCoalesceUsecsHigh: c[19], TxMaxCoalescedFramesHigh: c[20],
		RateSampleInterval: c[21]}
}
