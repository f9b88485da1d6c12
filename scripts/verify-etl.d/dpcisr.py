"""Checks `latlab dpcisr TRACE.etl --json` (argv[1]) against dissect.etl
reading the same trace (argv[2]): the number of DPC executions (PerfInfo
DPC, TimerDPC and ThreadedDPC events, types 68, 69 and 66) and of ISR
executions (ISR and ISR-MSI, types 67 and 50) must be equal. dissect.etl
(AGPL-3.0) runs as an oracle only. Exits 1 on a difference.
"""
import json
import sys

from dissect.etl import ETL

PERFINFO = "ce1dbfb4-137e-4da6-87b0-3f59aa102cbc"
DPC, ISR = (66, 68, 69), (50, 67)


def dissect_counts(path):
    dpc = isr = 0
    with open(path, "rb") as fh:
        for buf in ETL(fh).buffers():
            for rec in buf:
                h = rec.header
                if type(h).__name__ == "EventHeader":
                    continue  # the kernel's classic events only
                if str(h.provider_id) != PERFINFO:
                    continue
                if h.opcode in DPC:
                    dpc += 1
                elif h.opcode in ISR:
                    isr += 1
    return dpc, isr


def latlab_counts(doc):
    out = {}
    for s in doc["data"]["sections"]:
        total = (s.get("overall") or {}).get("total")
        if total is None:
            total = sum(m.get("total", 0) for m in s.get("modules", []))
        out[s["name"]] = total
    return out.get("DPC", 0), out.get("ISR", 0)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    got = latlab_counts(doc)
    want = dissect_counts(sys.argv[2])
    print("latlab dpcisr: %d DPCs, %d ISRs; dissect.etl: %d DPCs, %d ISRs" % (got + want))
    if got != want:
        print("DIFFERENT")
        sys.exit(1)


if __name__ == "__main__":
    main()
