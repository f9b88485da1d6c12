package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const (
	busyPollFile = "proc/sys/net/core/busy_poll"
	busyReadFile = "proc/sys/net/core/busy_read"
)

func TestBusyPollConforms(t *testing.T) {
	onEth0 := suite.File(busyReadFile, "50\n")
	onEth0.Target = "eth0"
	suite.RunFiles(t, suite.Files{
		Knob:    "busy-poll",
		Tree:    map[string]string{busyPollFile: "0\n", busyReadFile: "0\n", netCoreAnchorFile: "4096\n"},
		Explain: []string{"50", "0", "off", "poll=100", "read=50us,poll=0"},
		Set: []suite.Set{
			{Value: "50", Files: map[string]string{busyPollFile: "50\n", busyReadFile: "50\n"}},
			{Value: "read=50us", Files: map[string]string{busyPollFile: "0\n", busyReadFile: "50\n"}},
			{Value: "off", NoChange: true},
		},
		Bad: map[string]string{"-1": `invalid busy-poll "-1": accepted a number of µs for both`, "poll=50,spin=5": `unknown "spin"`},
		Foreign: []suite.Place{
			suite.File("proc/sys/net/core/busy_budget", "8\n"),
			suite.File(busyPollFile, "-1\n"),
			suite.File(busyReadFile, "50us\n"),
			onEth0, // the knob has no targets
		},
		Rules: []suite.Rule{
			{Files: map[string]string{}, Rule: "busy-off", Reason: "tuned 2.20.0 network-latency sets [sysctl] net.core.busy_read=50 and busy_poll=50"},
			{Files: map[string]string{busyPollFile: "50\n", busyReadFile: "50\n"}, Rule: "busy-on", Reason: "reads spin up to 50 µs"},
			{Files: map[string]string{busyReadFile: "50\n"}, Rule: "busy-on"},
			{Files: map[string]string{busyPollFile: "", busyReadFile: ""}, Rule: "busy-absent", Reason: "this kernel has no busy polling"},
			{Files: map[string]string{busyPollFile: "", busyReadFile: "", netCoreAnchorFile: ""}, Rule: "not shown", Reason: "not in this tree: /proc/sys/net/core is missing"},
		},
	})
	// From values written without a newline.
	suite.RunFiles(t, suite.Files{
		Knob: "busy-poll",
		Tree: map[string]string{busyPollFile: "0", busyReadFile: "7"},
		Set:  []suite.Set{{Value: "read=0,poll=50", Files: map[string]string{busyPollFile: "50\n", busyReadFile: "0\n"}}},
		More: true,
	})
}
