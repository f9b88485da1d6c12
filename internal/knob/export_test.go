package knob

// Test helpers shared with the external tests of this package.
var LinuxTreeForTest = linuxTree
var SnapshotTreeForTest = snapshotTree
