package backend

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// ErrNotSupported is a setting the driver or kernel does not offer.
var ErrNotSupported = errors.New("not supported")

// CoalesceField is one ethtool coalesce parameter: its `ethtool -C` name
// and what it means.
type CoalesceField struct{ Name, Desc string }

// CoalesceFields lists the parameters in struct order.
func CoalesceFields() []CoalesceField { return slices.Clone(coalesceFields) }

// coalesceFields are the ethtool coalesce parameters in the order of
// struct ethtool_coalesce, named as `ethtool -C` names them.
var coalesceFields = []CoalesceField{
	{"rx-usecs", "µs after a received packet before the rx interrupt"},
	{"rx-frames", "received packets before the rx interrupt"},
	{"rx-usecs-irq", "rx-usecs while an interrupt is being serviced"},
	{"rx-frames-irq", "rx-frames while an interrupt is being serviced"},
	{"tx-usecs", "µs after a sent packet before the tx-completion interrupt"},
	{"tx-frames", "sent packets before the tx-completion interrupt"},
	{"tx-usecs-irq", "tx-usecs while an interrupt is being serviced"},
	{"tx-frames-irq", "tx-frames while an interrupt is being serviced"},
	{"stats-block-usecs", "µs between statistics updates"},
	{"adaptive-rx", "1: the driver adapts rx coalescing to the packet rate"},
	{"adaptive-tx", "1: the driver adapts tx coalescing to the packet rate"},
	{"pkt-rate-low", "packets/s below which the -low values apply (adaptive)"},
	{"rx-usecs-low", "rx-usecs at a low packet rate"},
	{"rx-frames-low", "rx-frames at a low packet rate"},
	{"tx-usecs-low", "tx-usecs at a low packet rate"},
	{"tx-frames-low", "tx-frames at a low packet rate"},
	{"pkt-rate-high", "packets/s above which the -high values apply (adaptive)"},
	{"rx-usecs-high", "rx-usecs at a high packet rate"},
	{"rx-frames-high", "rx-frames at a high packet rate"},
	{"tx-usecs-high", "tx-usecs at a high packet rate"},
	{"tx-frames-high", "tx-frames at a high packet rate"},
	{"sample-interval", "seconds between packet-rate samples (adaptive)"},
}

// Coalesce holds the ethtool coalesce parameters in struct order.
type Coalesce [22]uint32

// CoalesceNames lists the parameter names.
func CoalesceNames() []string {
	ns := make([]string, len(coalesceFields))
	for i, f := range coalesceFields {
		ns[i] = f.Name
	}
	return ns
}

// MarshalJSON writes the parameters by name, in struct order.
func (c Coalesce) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range coalesceFields {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%d", f.Name, c[i])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// JSONSchemaText is the JSON Schema of what MarshalJSON writes, for the
// result document's schema.
func (Coalesce) JSONSchemaText() string {
	return `{"type":"object","additionalProperties":{"type":"integer","minimum":0}}`
}

// Value is the stored form of c.
func (c Coalesce) Value() Value {
	b, _ := c.MarshalJSON()
	return Value{Type: TypeEthCoalesce, Data: b}
}

// DecodeCoalesce reads a stored value.
func DecodeCoalesce(v Value) (Coalesce, error) {
	var c Coalesce
	if v.Type != TypeEthCoalesce {
		return c, fmt.Errorf("not a coalesce value: %s", v.Type)
	}
	var m map[string]uint32
	if err := json.Unmarshal(v.Data, &m); err != nil {
		return c, fmt.Errorf("coalesce value: %w", err)
	}
	for i, f := range coalesceFields {
		c[i] = m[f.Name]
	}
	return c, nil
}

// Short is the line ethtool users look at first.
func (c Coalesce) Short() string {
	return fmt.Sprintf("rx-usecs %d rx-frames %d adaptive-rx %s tx-usecs %d tx-frames %d", c[0], c[1], OnOff(c[9]), c[4], c[5])
}

// OnOff names a boolean parameter.
func OnOff(n uint32) string {
	if n != 0 {
		return "on"
	}
	return "off"
}

// Meaning says what the rx side does.
func (c Coalesce) Meaning() string {
	switch {
	case c[9] != 0:
		return "adaptive: the driver varies the rx interrupt delay with the packet rate"
	case c[0] == 0 && c[1] <= 1:
		return "an rx interrupt per packet: lowest latency, most interrupts"
	case c[0] > 0:
		return fmt.Sprintf("rx interrupts delayed up to %d µs to batch packets", c[0])
	}
	return fmt.Sprintf("an rx interrupt every %d packets", c[1])
}
