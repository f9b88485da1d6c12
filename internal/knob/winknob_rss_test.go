package knob_test

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

func TestRSSConforms(t *testing.T) {
	target := "Intel(R) Ethernet Controller I210"
	suite.RunRegistry(t, suite.Registry{
		Knob:    "rss",
		Build:   22631,
		Sel:     knob.Selector{Adapter: "0007"},
		Values:  i210Values(),
		Explain: []string{"on", "off", "*NumRssQueues=4", "*RssBaseProcNumber=2"},
		Set: []suite.RegSet{
			{Value: "off", Values: []suite.Value{i210Keyword("*RSS", "0")}},
			{Value: "*NumRssQueues=4", Values: []suite.Value{i210Keyword("*NumRssQueues", "4")}},
			{Value: "*RssBaseProcNumber=2", Values: []suite.Value{i210Keyword("*RssBaseProcNumber", "2")}},
			{Value: "on", NoChange: true},
		},
		Bad: map[string]string{
			"*RSSProfile=9":     "accepted 1-6",
			"*NumaNodeId=65536": "accepted 0-65535",
			"*Foo=1":            "KEYWORD one of",
			"*RssBaseProcNumber=8,*RssMaxProcNumber=4": "must not exceed",
			"*NumRssQueues=3":                          `is not offered by "Intel(R) Ethernet Controller I210"`,
			"":                                         "no rss setting given",
		},
		Foreign: []suite.Place{
			suite.RegPlace(i210, "DriverDesc", backend.SZ("x"), target),
			suite.RegPlace(knob.NetClassKey+`\Properties`, "*RSS", backend.SZ("1"), target),
			suite.RegPlace(i210, "*RSS", backend.SZ("1"), ""),
			suite.RegPlace(i210, "*RSS", backend.SZ("1; x"), target),
		},
		Rules: []suite.RegRule{
			{Rule: "rss-default", Reason: "the driver's defaults"},
			{Values: []suite.Value{i210Keyword("*RSS", "0")}, Rule: "rss-off", Reason: "one CPU processes all received packets"},
			{Values: []suite.Value{i210Keyword("*NumRssQueues", "4")}, Rule: "rss-tuned", Reason: "*NumRssQueues=4 (default 2)"},
			{Env: func(t *testing.T, e *knob.Env) {
				// MSFT_NetOffloadGlobalSetting as PowerShell prints it
				// in JSON, in any language.
				e.RSSState = func() (*knob.RSSState, error) {
					g, err := knob.ParseOffloadGlobal(strings.NewReader(`{"ReceiveSideScaling":0,"ReceiveSegmentCoalescing":1}`))
					return &knob.RSSState{Offload: g}, err
				}
			}, Rule: "rss-global-off", Reason: "RSS is disabled globally"},
			{Env: noAdapters, Rule: "rss-none", Reason: "no network adapter declares RSS"},
		},
	})
}
