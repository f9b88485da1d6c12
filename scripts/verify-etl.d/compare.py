"""Compares latlab's reading of an .etl trace with dissect.etl's, and the
frames of its packet events with what tshark reads from the payloads
etl-parser's templates decode. Used by scripts/verify-etl.

Usage: compare.py LATLAB TRACE.etl

It runs `LATLAB etl --json TRACE` and compares, with dissect.etl reading
the same file:
- the header facts (Windows version and build, CPUs, pointer size, buffer
  size, buffers written, log file mode, lost events and buffers, CPU speed,
  clock frequency, start and end, logger name);
- the events per provider or kernel class, and per opcode (classic
  events) or event id (manifest, TraceLogging and WPP events);
- the kernel images (process 0) of the Image events (Load, DCStart and
  DCEnd): base, size, file.
For a trace with NDIS-PacketCapture or PktMon packet events it also runs
`LATLAB pcap dscp --dedup off --json TRACE` and compares its frames and
its packets per source, destination and DSCP with tshark reading a pcap
of the frames that etl-parser's templates (NDIS-PacketCapture 1001,
PktMon 160 and 170) decode from the events dissect.etl hands out: the
events' bytes come from dissect.etl, which reads compressed buffers;
etl-parser does not.

Where dissect.etl is wrong, the script says so and checks the right form:
it reads the provider GUID of EVENT_HEADER events big-endian
(uuid.UUID(bytes=...)) although the file holds a GUID structure, little-
endian like every other header's: the WSL provider
Microsoft.Windows.Subsystem.LxCore comes out as
{09c3d10c-7808-1545-83db-749843b3f5c9}, and Microsoft documents it as
{0CD1C309-0878-4515-83DB-749843B3F5C9}. The script swaps those GUIDs back.

A written trace's .expect.json sidecar (internal/etl/testdata) says what
the test writer wrote: its DPC/ISR events and frames are checked too.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import uuid
from collections import Counter

from dissect.etl import ETL
from etl.parsers.etw.core import build_etw, guid as etw_guid

NDIS = "2ed6006e-4729-4609-b423-3ee7bcd678ef"
PKTMON = "4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac"
IMAGE = "2cb15d1d-5fc1-11d2-abe1-00a0c911f518"
PERFINFO = "ce1dbfb4-137e-4da6-87b0-3f59aa102cbc"
LXCORE = "0cd1c309-0878-4515-83db-749843b3f5c9"
PKTMON_LINK = {1: 1, 2: 105, 3: 101}  # PKTMON_PACKET_TYPE -> pcap link type


def swapped(u):
    """The GUID dissect.etl reads big-endian, as the file holds it."""
    return str(uuid.UUID(bytes_le=u.bytes))


def user_data(h):
    """An EVENT_HEADER event's user data: its payload after the extended
    data items (flag 0x0001), each 8 bytes of header and its data, 8-byte
    aligned, the last with linkage bit 0 clear."""
    p = bytes(h.payload)
    if not h.header.Flags & 1:
        return p
    pos = 0
    while pos + 8 <= len(p):
        linkage, size = struct.unpack_from("<HH", p, pos + 4)
        pos = (pos + 8 + size + 7) & ~7
        if not linkage & 1:
            break
    return p[pos:]


def filetime(s):
    """An RFC 3339 time of latlab's JSON as a FILETIME (100 ns units)."""
    if s.startswith("0001-01-01"):
        return 0
    from datetime import datetime, timezone
    date, frac = s.rstrip("Z"), "0"
    if "." in date:
        date, frac = date.split(".")
    t = datetime.strptime(date, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
    secs = int(t.timestamp()) + 11644473600
    return secs * 10_000_000 + int((frac + "0000000")[:7])


class Dissect:
    def __init__(self, path):
        self.counts, self.ops, self.images = Counter(), Counter(), set()
        self.perfinfo, self.packets, self.notes = [], [], set()
        self.swapped = Counter()
        with open(path, "rb") as fh:
            e = ETL(fh)
            self.header = e.logfile_header
            names = bytes(e.logfile_header.payload)
            self.logger = names.decode("utf-16-le", "replace").split("\x00")[0]
            for buf in e.buffers():
                try:
                    for rec in buf:
                        self.record(rec)
                except Exception as ex:  # noqa: BLE001: a reader's failure is a finding
                    self.notes.add("dissect.etl stops reading a buffer at offset %d: %s" % (buf.offset, ex))

    def record(self, rec):
        h = rec.header
        kind = type(h).__name__
        g = str(h.provider_id)
        if kind == "EventHeader":
            self.swapped[(g, swapped(h.provider_id))] += 1
            g = swapped(h.provider_id)
        self.counts[g] += 1
        if kind == "EventHeader":
            key = ("id", h.header.Id)
        elif kind == "MessageTraceHeader":
            key = ("id", h.id)
        elif hasattr(h, "opcode"):
            key = ("op", h.opcode)
        else:  # EVENT_TRACE_HEADER and instance headers: the type is the low byte of "Version"
            key = ("op", h.header.Version & 0xFF)
        self.ops[(g,) + key] += 1
        if kind == "EventHeader" and g in (NDIS, PKTMON):
            self.packet(g, h)
            return
        if g not in (IMAGE, PERFINFO) or kind not in ("SystemHeader", "CompactSystemHeader", "PerfinfoTraceHeader"):
            return
        try:
            ev = rec.event
        except (TypeError, KeyError) as ex:  # dissect.etl 3.14 fails on some 32-bit payloads
            self.notes.add("dissect.etl cannot decode this trace's kernel payloads (%s); its kernel images and DPC/ISR fields are not compared" % ex)
            return
        if g == IMAGE and h.opcode in (3, 4, 10):  # Load and both rundowns (DCStart, DCEnd)
            try:
                if ev.ProcessId == 0:
                    self.images.add((ev.ImageBase, ev.ImageSize, ev.FileName))
            except AttributeError:
                pass
        elif g == PERFINFO and h.opcode in (50, 66, 67, 68, 69):
            vec = getattr(ev, "Vector", 0) if h.opcode in (50, 67) else 0
            msg = getattr(ev, "MessageNumber", -1) if h.opcode == 50 else -1
            self.perfinfo.append([h.opcode, ev.InitialTime, ev.Routine, vec, msg])

    def packet(self, g, h):
        eid, ver = h.header.Id, h.header.Version
        if (g, eid) not in ((NDIS, 1001), (PKTMON, 160), (PKTMON, 170)):
            return
        try:
            src = build_etw(etw_guid(g), eid, ver, user_data(h)).source
        except Exception as ex:  # noqa: BLE001
            self.packets.append(("undecodable", str(ex), b""))
            return
        if g == NDIS:
            kw = h.header.Keywords
            link = 105 if kw & 0x10000 else 101 if kw & 0x200 else 1
            self.packets.append(("ndis", (link, src.MiniportIfIndex, kw), bytes(src.Fragment)))
        else:
            self.packets.append(("pktmon", PKTMON_LINK.get(src.PacketType), bytes(src.Payload)))


def ndis_frames(packets):
    """NDIS fragments joined into frames by the keywords' first (0x40000000)
    and last (0x80000000) fragment bits, per interface."""
    out, pending = [], {}
    for kind, meta, data in packets:
        if kind != "ndis":
            continue
        link, ifx, kw = meta
        if kw & 0x40000000:
            pending.pop(ifx, None)
        if not kw & 0x80000000:
            if kw & 0x40000000 or ifx in pending:
                pending[ifx] = pending.get(ifx, b"") + data
            continue
        out.append((link, pending.pop(ifx, b"") + data))
    return out


def tshark_view(frames):
    """Per (source, destination, DSCP): tshark's count of the frames."""
    tally = Counter()
    by_link = {}
    for link, data in frames:
        by_link.setdefault(link, []).append(data)
    with tempfile.TemporaryDirectory() as d:
        for link, datas in by_link.items():
            p = os.path.join(d, "l%d.pcap" % link)
            with open(p, "wb") as f:
                f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, link))
                for data in datas:
                    f.write(struct.pack("<IIII", 0, 0, len(data), len(data)) + data)
            out = subprocess.run(
                ["tshark", "-n", "-r", p, "-T", "fields", "-E", "occurrence=f", "-E", "separator=,",
                 "-e", "ip.src", "-e", "ip.dst", "-e", "ip.dsfield.dscp",
                 "-e", "ipv6.src", "-e", "ipv6.dst", "-e", "ipv6.tclass.dscp"],
                check=True, capture_output=True, text=True).stdout
            for line in out.splitlines():
                s4, d4, c4, s6, d6, c6 = (line.split(",") + [""] * 6)[:6]
                if c4:
                    tally[(s4, d4, int(c4, 0))] += 1
                elif c6:
                    tally[(s6, d6, int(c6, 0))] += 1
    return tally


def latlab_json(latlab, *args):
    out = subprocess.run([latlab] + list(args), capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip()
    return json.loads(out.stdout)["data"], None


def check(latlab, path):
    """Prints what differs and what was compared; True when nothing differs."""
    diffs, infos = [], []
    doc, err = latlab_json(latlab, "etl", "--json", path)
    if doc is None:
        print("  latlab etl fails: " + err)
        return False
    d = Dissect(path)

    # Header facts.
    lh = d.header.header
    facts = {
        "os": "%d.%d" % (lh.MajorVersion, lh.MinorVersion), "build": lh.ProviderVersion,
        "cpus": lh.NumberOfProcessors, "pointer_size": lh.PointerSize, "buffer_size": lh.BufferSize,
        "buffers_written": lh.BuffersWritten, "log_file_mode": lh.LogFileMode,
        "events_lost": lh.EventsLost, "buffers_lost": lh.BufferLost, "cpu_speed_mhz": lh.CpuSpeedInMHz,
        "logger_name": d.logger,
    }
    if lh.ReservedFlags == 1:
        facts["clock_frequency_hz"] = lh.PerfFreq
    hdr = doc["header"]
    for k, v in facts.items():
        if hdr.get(k) != v:
            diffs.append("header %s: latlab %r, dissect.etl %r" % (k, hdr.get(k), v))
    for k, v in (("start", lh.StartTime), ("end", lh.EndTime)):
        if filetime(hdr[k]) != v:
            diffs.append("header %s: latlab %s (FILETIME %d), dissect.etl FILETIME %d" % (k, hdr[k], filetime(hdr[k]), v))

    # Events per provider, opcode and event id.
    ours, our_ops = Counter(), Counter()
    for p in doc["providers"]:
        ours[p["guid"]] += p["events"]
        for c in p.get("opcodes") or []:
            our_ops[(p["guid"], "op", c["value"])] += c["events"]
        for c in p.get("ids") or []:
            our_ops[(p["guid"], "id", c["value"])] += c["events"]
    for g in sorted(set(ours) | set(d.counts)):
        if ours[g] != d.counts[g]:
            diffs.append("%s: latlab %d events, dissect.etl %d" % (g, ours[g], d.counts[g]))
    for k in sorted(set(our_ops) | set(d.ops), key=str):
        if our_ops[k] != d.ops[k] and ours[k[0]] == d.counts[k[0]]:
            diffs.append("%s %s %d: latlab %d events, dissect.etl %d" % (k[0], "opcode" if k[1] == "op" else "id", k[2], our_ops[k], d.ops[k]))
    for (raw, fixed), n in sorted(d.swapped.items()):
        if raw != fixed and fixed == LXCORE:
            infos.append("dissect.etl names the EVENT_HEADER provider {%s} (%d events); Microsoft documents LxCore as {%s}: compared in that form" % (raw, n, fixed.upper()))
    if any(raw != fixed for raw, fixed in d.swapped):
        infos.append("dissect.etl reads EVENT_HEADER provider GUIDs big-endian (%d providers); compared after swapping them back" % len({r for r, f in d.swapped if r != f}))

    # Kernel images.
    our_images = {(m["base"], m["size"], m["file"]) for m in doc["modules"]}
    if not d.notes:
        for im in sorted(our_images ^ d.images):
            who = "latlab only" if im in our_images else "dissect.etl only"
            diffs.append("kernel image %s: base %#x size %d %s" % (who, im[0], im[1], im[2]))

    # Written traces: what the writer wrote.
    try:
        expect = json.load(open(path + ".expect.json"))
    except FileNotFoundError:
        expect = None
    if expect and "perfinfo" in expect and not d.notes:
        if d.perfinfo != expect["perfinfo"]:
            diffs.append("dissect.etl reads %d DPC/ISR events, other than the %d written" % (len(d.perfinfo), len(expect["perfinfo"])))
        else:
            infos.append("dissect.etl reads all %d DPC/ISR events as written (type, entry, routine, vector, message)" % len(d.perfinfo))

    # Packet events: frames and DSCP.
    if d.packets:
        bad = [p for p in d.packets if p[0] == "undecodable"]
        if bad:
            diffs.append("etl-parser cannot decode %d packet events (%s)" % (len(bad), bad[0][1]))
        frames = ndis_frames(d.packets) + [(m, b) for k, m, b in d.packets if k == "pktmon" and m is not None]
        other = sum(1 for k, m, _ in d.packets if k == "pktmon" and m is None)
        if expect and "frames" in expect:
            want = [bytes.fromhex(f) for f in expect["frames"]]
            if [b for _, b in frames] != want:
                diffs.append("the packet events hold other frames than the %d written" % len(want))
        pc, err = latlab_json(latlab, "pcap", "dscp", "--dedup", "off", "--json", path)
        if pc is None:
            diffs.append("latlab pcap dscp fails: " + err)
        else:
            if pc["capture"]["frames"] != len(frames):
                diffs.append("frames: latlab %d, etl-parser %d (and %d of other packet types)" % (pc["capture"]["frames"], len(frames), other))
            ours_dscp = Counter()
            for f in pc["flows"]:
                for v, n in f["dscp"].items():
                    ours_dscp[(f["src"], f["dst"], int(v))] += n
            theirs = tshark_view(frames)
            for k in sorted(set(ours_dscp) | set(theirs)):
                if ours_dscp[k] != theirs[k]:
                    diffs.append("packets %s -> %s DSCP %d: latlab %d, tshark %d" % (k + (ours_dscp[k], theirs[k])))
            if not diffs:
                per = Counter()
                for k, n in theirs.items():
                    per[k[2]] += n
                infos.append("%d frames, %d IP packets in %d (source, destination, DSCP) groups as tshark reads them; DSCP %s" % (
                    len(frames), sum(theirs.values()), len(theirs), ", ".join("%d: %d" % kv for kv in sorted(per.items()))))

    for line in diffs:
        print("  " + line)
    for line in infos:
        print("  note: " + line)
    for line in sorted(d.notes):
        print("  note: " + line)
    print("  %d providers, %d events, %d kernel images; dissect.etl %d events" % (len(ours), sum(ours.values()), len(our_images), sum(d.counts.values())))
    return not diffs


if __name__ == "__main__":
    sys.exit(0 if check(sys.argv[1], sys.argv[2]) else 1)
