package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/timer"
)

// timer status predicts Sleep(1) with the rule PC-Tuning measured
// ("Micro-Adjusting Timer Resolution for Higher Precision",
// https://github.com/valleyofdoom/PC-Tuning/blob/main/docs/research.md):
// 1.497 ms at 0.4992 ms, 1.012 ms at 0.5068 ms.
func TestTimerStatusPredictsSleep1(t *testing.T) {
	for _, c := range []struct {
		current uint32
		want    string
	}{
		{4992, "predicted: Sleep(1) at 0.4992 ms lasts 3 ticks = 1.4976 ms"},
		{5068, "predicted: Sleep(1) at 0.5068 ms lasts 2 ticks = 1.0136 ms"},
	} {
		var b bytes.Buffer
		TimerStatus(&b, &timer.Status{Coarsest100ns: 156250, Finest100ns: 5000, Current100ns: c.current, Build: 22631})
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("missing %q in\n%s", c.want, b.String())
		}
	}
}
