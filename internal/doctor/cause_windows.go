package doctor

import (
	"context"
	"errors"
	"fmt"

	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/units"
)

// notTraced is the line the check-up shows when it cannot trace.
const notTraced = "not traced: run latlab as administrator and the check-up names the driver with the most DPC and ISR time"

// findCause watches DPCs and ISRs for o.CauseDuration (the machinery of
// latlab dpc watch), after the probes so that it does not disturb them,
// and names the driver with the most DPC and ISR time and the longest
// single DPC or ISR with its verdict, LatencyMon's answer.
func findCause(ctx context.Context, o Options) *Cause {
	if !etw.Elevated() {
		return &Cause{Missing: notTraced}
	}
	res, err := dpcwatch.Run(ctx, dpcwatch.Options{Duration: o.CauseDuration})
	if err != nil {
		var held *etw.HeldError
		if errors.As(err, &held) {
			return &Cause{Missing: "not traced: the kernel trace session is in use (stop the other trace, or run latlab dpc watch later): " + err.Error()}
		}
		return &Cause{Missing: "not traced: " + err.Error()}
	}
	c := DPCCause(res.Summary)
	c.Run = fmt.Sprintf("a %s DPC/ISR watch after the probes (latlab dpc watch's trace)", units.Duration(o.CauseDuration))
	return &c
}
