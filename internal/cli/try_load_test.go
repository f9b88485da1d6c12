package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// --load belongs to the dpcisr probe and takes --to (and for udp the
// profile flags); misuse is one line and exit 2.
func TestTryLoadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"try", "timer-slack", "1us", "--probe", "sleep", "--load", "udp"}, "--load do(es) not go with --probe sleep"},
		{[]string{"try", "timer-slack", "1us", "--probe", "dpcisr", "--load", "tcp"}, "needs --to HOST:PORT"},
		{[]string{"try", "timer-slack", "1us", "--probe", "dpcisr", "--load", "icmp", "--to", "127.0.0.1:9"}, "accepted udp or tcp"},
		{[]string{"try", "timer-slack", "1us", "--probe", "dpcisr", "--load", "tcp", "--to", "127.0.0.1:9", "--profile", "bulk"}, "--profile do(es) not go with --probe dpcisr"},
		{[]string{"try", "timer-slack", "1us", "--probe", "dpcisr", "--load", "udp", "--to", "127.0.0.1:7", "--profile", "nope"}, "invalid --profile"},
	} {
		code, _, errs := runCLI(t, c.args...)
		testutil.CheckBadExit(t, fmt.Sprint(c.args), code, errs, c.want)
	}
	// With its flags right, a dpcisr load gets as far as the probe's own
	// refusal off Windows.
	code, _, errs := runCLI(t, "try", "timer-slack", "1us", "--probe", "dpcisr", "--load", "udp", "--to", "127.0.0.1:7", "--profile", "bulk", "--rate", "1000")
	if code != 2 || strings.Contains(errs, "--load") || strings.Contains(errs, "--profile") || strings.Contains(errs, "--rate") {
		t.Errorf("a well-formed load: exit %d, %q", code, errs)
	}
}
