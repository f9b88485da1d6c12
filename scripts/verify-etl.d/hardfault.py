"""Checks the hard page faults of `latlab dpcisr TRACE.etl --json` against
dissect.etl reading the same trace. Used by scripts/verify-etl.

Usage: hardfault.py LATLAB TRACE.etl

dissect.etl (AGPL-3.0, run as an oracle only) frames the events and
decodes the kernel's PageFault HardFault (type 32), Thread (types 1-4)
and Process (types 1-4) events with its own MOF definitions. Where
dissect.etl 3.14 cannot decode an event (every kernel payload of a
32-bit trace: its EtwPointer.as_32bit fails; a Thread event shorter than
its MOF), the script decodes the payload dissect.etl frames itself, in the layouts of Microsoft's class pages
(PageFault_HardFault, Thread_V2_TypeGroup1, Process_V4_TypeGroup1; the
SID as etl-parser's Process_V4_TypeGroup1 reads it) and says so.

Each fault goes to the process of its thread (TThreadId) as the Thread
events name it: the lifetime (first to last event naming the thread in
that process) that spans the fault's time stamp, else the nearest one;
the process's image is the ImageFileName of its Process events, chosen
the same way. Per process (image, PID; a thread no Thread event names
is its own row) the faults, bytes read (ByteCount), the time waited in
all and the longest (time stamp minus InitialTime, in microseconds of
the trace's clock) must equal latlab's. For a written trace, the
.expect.json sidecar lists every HardFault event as written (TThreadId,
InitialTime, time stamp, ReadOffset, ByteCount): dissect.etl must read
those, and each process's image. A trace without HardFault events must
be one latlab says has none. Exits 1 on a difference.
"""
import json
import struct
import subprocess
import sys
from collections import OrderedDict

from dissect.etl import ETL

PAGEFAULT = "3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c"
THREAD = "3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c"
PROCESS = "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c"
KERNEL_HEADERS = ("SystemHeader", "CompactSystemHeader", "PerfinfoTraceHeader")


def own_hardfault(p, ptr):
    """PageFault_HardFault: InitialTime, ReadOffset, VirtualAddress,
    FileObject (pointers), TThreadId, ByteCount."""
    initial, offset = struct.unpack_from("<QQ", p, 0)
    tid, count = struct.unpack_from("<II", p, 16 + 2 * ptr)
    return initial, offset, tid, count


def own_thread(p):
    """Thread_V2_TypeGroup1 and later: ProcessId, TThreadId first."""
    return struct.unpack_from("<II", p, 0)


def own_process(p, ptr, version):
    """Process_V2 to V4_TypeGroup1 up to ImageFileName."""
    pid = struct.unpack_from("<I", p, ptr)[0]
    off = ptr + 16
    if version >= 3:
        off += ptr
    if version >= 4:
        off += 4
    off += 2 * ptr  # TOKEN_USER, then the SID: 8 bytes and 4 per sub-authority
    off += 8 + 4 * p[off + 1]
    end = p.index(b"\0", off)
    return pid, p[off:end].decode("latin-1")


class Trace:
    def __init__(self, path):
        self.faults, self.threads, self.procs = [], [], []
        self.own, self.notes = 0, set()
        with open(path, "rb") as fh:
            e = ETL(fh)
            self.freq = e.logfile_header.header.PerfFreq
            for buf in e.buffers():
                for rec in buf:
                    self.record(rec)

    def record(self, rec):
        h = rec.header
        if type(h).__name__ not in KERNEL_HEADERS:
            return
        g, op = str(h.provider_id), h.opcode
        if not ((g == PAGEFAULT and op == 32) or (g in (THREAD, PROCESS) and op in (1, 2, 3, 4))):
            return
        ts = h.time_delta  # the raw time stamp: the trace's clock
        ptr = 8 if h.is_64bit else 4
        ev = None
        try:
            ev = rec.event
        except Exception as ex:  # noqa: BLE001: a reader's failure is a finding
            self.own += 1
            self.notes.add("dissect.etl cannot decode some of this trace's kernel payloads (%s: %s): the script decodes the payloads dissect.etl frames itself" % (type(ex).__name__, ex))
        p = bytes(h.payload)
        if g == PAGEFAULT:
            if ev is not None:
                self.faults.append((ev.TThreadId, ev.InitialTime, ts, ev.ReadOffset, ev.ByteCount))
            else:
                initial, offset, tid, count = own_hardfault(p, ptr)
                self.faults.append((tid, initial, ts, offset, count))
        elif g == THREAD:
            pid, tid = (ev.ProcessId, ev.TThreadId) if ev is not None else own_thread(p)
            self.threads.append((tid, pid, ts))
        else:
            if ev is not None:
                name = ev.ImageFileName
                pid, image = ev.ProcessId, name.decode("latin-1") if isinstance(name, bytes) else str(name)
            else:
                pid, image = own_process(p, ptr, h.version)
            self.procs.append((pid, image, ts))


def lifetimes(events):
    """id -> [owner, from, to] per (id, owner), in the order first seen."""
    out = OrderedDict()
    for key, owner, ts in events:
        ls = out.setdefault(key, [])
        for lt in ls:
            if lt[0] == owner:
                lt[1], lt[2] = min(lt[1], ts), max(lt[2], ts)
                break
        else:
            ls.append([owner, ts, ts])
    return out


def at(lts, key, ts):
    best, who = None, None
    for owner, lo, hi in lts.get(key, []):
        d = lo - ts if ts < lo else ts - hi if ts > hi else 0
        if best is None or d < best:
            best, who = d, owner
    return who


def per_process(t):
    threads, procs = lifetimes(t.threads), lifetimes(t.procs)
    rows = {}
    for tid, initial, ts, offset, count in t.faults:
        pid = at(threads, tid, ts)
        if pid is None:
            key = ("", None, tid)
        else:
            key = (at(procs, pid, ts) or "", pid, None)
        r = rows.setdefault(key, [0, 0, 0, 0])
        r[0] += 1
        r[1] += count
        r[2] += ts - initial
        r[3] = max(r[3], ts - initial)
    us = lambda ticks: round(ticks * 1e7 / t.freq) / 10
    return {k: (n, b, us(tot), us(mx)) for k, (n, b, tot, mx) in rows.items()}


def check(latlab, path):
    """Prints what differs and what was compared; True when nothing differs."""
    t = Trace(path)
    diffs, infos = [], []
    out = subprocess.run([latlab, "dpcisr", "--json", path], capture_output=True, text=True)
    if not t.faults:
        if out.returncode == 0:
            hf = json.loads(out.stdout)["data"].get("hard_faults") or {}
            if hf.get("events"):
                diffs.append("latlab reads %d hard faults, dissect.etl none" % hf["events"])
        elif "no hard page faults" not in out.stderr:
            diffs.append("latlab dpcisr fails: " + out.stderr.strip())
        for line in diffs:
            print("  " + line)
        print("  hard faults: none (dissect.etl and latlab)" if not diffs else "  hard faults: DIFFERENT")
        return not diffs
    if out.returncode != 0:
        print("  latlab dpcisr fails: " + out.stderr.strip())
        return False
    hf = json.loads(out.stdout)["data"]["hard_faults"]
    ours = {}
    for p in hf["processes"]:
        key = (p.get("image", ""), p.get("pid"), p.get("tid") if p.get("pid") is None else None)
        ours[key] = (p["faults"], p["bytes"], p["total_us"], p["longest_us"])
    theirs = per_process(t)
    name = lambda k: "%s pid %s" % (k[0] or "(image unknown)", k[1]) if k[1] is not None else "thread %s, process unknown" % k[2]
    for k in sorted(set(ours) | set(theirs), key=str):
        a, b = ours.get(k), theirs.get(k)
        if a is None or b is None or a[:2] != b[:2] or abs(a[2] - b[2]) > 0.05 or abs(a[3] - b[3]) > 0.05:
            diffs.append("%s: latlab %s, dissect.etl %s (faults, bytes, waited µs, longest µs)" % (name(k), a, b))
    if hf["events"] != len(t.faults):
        diffs.append("HardFault events: latlab %d, dissect.etl %d" % (hf["events"], len(t.faults)))
    try:
        expect = json.load(open(path + ".expect.json"))
    except FileNotFoundError:
        expect = None
    if expect and "hardfault" in expect:
        if [list(f) for f in t.faults] != expect["hardfault"]:
            diffs.append("dissect.etl reads other HardFault events than the %d written" % len(expect["hardfault"]))
        else:
            who = "dissect.etl reads" if not t.own else "the payloads dissect.etl frames hold"
            infos.append("%s all %d HardFault events as written (thread, InitialTime, time stamp, ReadOffset, ByteCount)" % (who, len(t.faults)))
        images = {str(pid): image for pid, image, _ in t.procs}
        if images != expect["processes"]:
            diffs.append("process images: dissect.etl %s, written %s" % (images, expect["processes"]))
    for line in diffs:
        print("  " + line)
    for line in infos + sorted(t.notes):
        print("  note: " + line)
    waits = sorted(f[2] - f[1] for f in t.faults)
    print("  hard faults: %d in %d rows (processes, unknown threads), equal in latlab and dissect.etl%s; waits %.1f µs to %.1f ms" % (
        len(t.faults), len(theirs), "" if not diffs else " EXCEPT AS ABOVE",
        waits[0] * 1e6 / t.freq, waits[-1] * 1e3 / t.freq))
    return not diffs


if __name__ == "__main__":
    sys.exit(0 if check(sys.argv[1], sys.argv[2]) else 1)
