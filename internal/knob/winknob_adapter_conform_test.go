package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest"
	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

// i210 is an Intel I210 adapter's class key, its keywords stored by its
// INF at their defaults and declared in Ndi\Params (the e1r INF's ITR
// levels, Adaptive 65535 the default).
const i210 = knob.NetClassKey + `\0007`

func i210Values() []suite.Value {
	sz := backend.SZ
	vs := []suite.Value{
		suite.Reg(i210, "DriverDesc", sz("Intel(R) Ethernet Controller I210")),
		suite.Reg(i210, "NetCfgInstanceId", sz("{5D2B1A11-2C33-4F4B-9A66-0123456789AB}")),
		suite.Reg(i210+`\Ndi`, "Service", sz("e1rexpress")),
		suite.Reg(i210, "*RSS", sz("1")),
		suite.Reg(i210, "*NumRssQueues", sz("2")),
		suite.Reg(i210, "*InterruptModeration", sz("1")),
		suite.Reg(i210, "ITR", sz("65535")),
	}
	enum := func(kw, def string, opts map[string]string) {
		p := i210 + `\Ndi\Params\` + kw
		vs = append(vs, suite.Reg(p, "type", sz("enum")), suite.Reg(p, "default", sz(def)))
		for v, n := range opts {
			vs = append(vs, suite.Reg(p+`\Enum`, v, sz(n)))
		}
	}
	enum("*RSS", "1", map[string]string{"0": "Disabled", "1": "Enabled"})
	enum("*NumRssQueues", "2", map[string]string{"1": "1 Queue", "2": "2 Queues", "4": "4 Queues"})
	enum("*InterruptModeration", "1", map[string]string{"0": "Disabled", "1": "Enabled"})
	enum("ITR", "65535", map[string]string{"65535": "Adaptive", "3600": "Extreme", "2000": "High", "950": "Medium", "400": "Low", "200": "Minimal", "0": "Off"})
	return vs
}

// i210Keyword is a stored keyword of the adapter.
func i210Keyword(kw, v string) suite.Value { return suite.Reg(i210, kw, backend.SZ(v)) }

// noAdapters is a machine without network adapters.
func noAdapters(t *testing.T, e *knob.Env) {
	e.Backends[backend.BackendRegistry] = knobtest.NewMem()
}
