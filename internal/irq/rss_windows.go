package irq

import (
	"fmt"
	"strconv"

	"golang.org/x/sys/windows/registry"
)

// netClassKey is the network adapter device class: one numbered subkey per
// adapter, holding the driver's advanced properties (*RSS, ...).
const netClassKey = `SYSTEM\CurrentControlSet\Control\Class\{4d36e972-e325-11ce-bfc1-08002be10318}`

// readNetInfoWindows lists adapters that have RSS keywords, with their
// values as Get-NetAdapterRss reports them. Per-queue interrupt counts are
// not available without ETW; PDH gives per-processor totals only.
func readNetInfoWindows(live bool) *NetInfo {
	n := &NetInfo{Notes: []string{"Windows: interrupts and DPCs are per processor for all drivers (PDH); an xperf/WPR trace attributes them to the network driver"}}
	if !live {
		return n
	}
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, netClassKey, registry.ENUMERATE_SUB_KEYS|registry.READ)
	if err != nil {
		n.Notes = append(n.Notes, "adapter registry: "+err.Error())
		return n
	}
	defer k.Close()
	subs, _ := k.ReadSubKeyNames(-1)
	for _, s := range subs {
		a, err := registry.OpenKey(k, s, registry.READ)
		if err != nil {
			continue
		}
		settings := map[string]string{}
		for _, v := range RSSRegistryValues {
			if sv, _, err := a.GetStringValue(v); err == nil {
				settings[v] = sv
			} else if iv, _, err := a.GetIntegerValue(v); err == nil {
				settings[v] = strconv.FormatUint(iv, 10)
			}
		}
		desc, _, _ := a.GetStringValue("DriverDesc")
		id, _, _ := a.GetStringValue("NetCfgInstanceId")
		a.Close()
		if len(settings) == 0 {
			continue
		}
		if p, ok := settings["*RSSProfile"]; ok {
			settings["*RSSProfile"] = fmt.Sprintf("%s (%s)", p, RSSProfileName(p))
		}
		f := Iface{Name: desc, Device: id, RSS: &RSS{Source: "registry", Settings: settings}}
		if q, err := strconv.Atoi(settings["*NumRssQueues"]); err == nil {
			f.RxQueues = q
		}
		n.Interfaces = append(n.Interfaces, f)
	}
	return n
}
