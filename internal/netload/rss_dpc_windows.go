package netload

import (
	"context"
	"time"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/etw"
)

// DefaultDPCTracer is the kernel trace of latlab dpc watch when this
// process may start one (elevated, not Wine); otherwise nil and why not.
func DefaultDPCTracer() (DPCTracer, string) {
	switch {
	case etw.UnderWine():
		return nil, "no DPC time per driver: Wine has no kernel trace"
	case !etw.Elevated():
		return nil, "no DPC time per driver: the kernel trace needs an elevated prompt (Run as administrator)"
	}
	return func(ctx context.Context, d time.Duration) (*dpcisr.Report, error) {
		r, err := dpcwatch.Run(ctx, dpcwatch.Options{Duration: d})
		if err != nil {
			return nil, err
		}
		return r.Report, nil
	}, ""
}
