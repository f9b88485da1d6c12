package try

// The test bench's adapter knobs (msi-mode, nic-buffers,
// nic-power-saving): like rss and interrupt-moderation they take effect
// when the adapter restarts, except MSI mode, which Windows reads when it
// assigns the device's resources at boot.
func init() {
	infos["msi-mode"] = Info{OS: "windows", Scope: ScopeSystem, Pending: "Windows reads it when it assigns the device's resources: it takes effect after a reboot"}
	infos["nic-buffers"] = Info{OS: "windows", Scope: ScopeSystem, Restart: true, Settle: DefaultSettle, Probe: "udp"}
	infos["nic-power-saving"] = Info{OS: "windows", Scope: ScopeSystem, Restart: true, Settle: DefaultSettle, Probe: "udp"}
}
