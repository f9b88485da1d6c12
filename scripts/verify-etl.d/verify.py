"""Runs compare.py's and hardfault.py's checks over many traces in one
process: importing dissect.etl and etl-parser takes about 3 s, which a
process per trace paid again for each. Used by scripts/verify-etl.

Usage: verify.py LATLAB LABEL TRACE.etl [LABEL TRACE.etl ...]

Prints each check's lines, then "ok   LABEL" or "FAIL LABEL"; exits 1 if
any trace fails.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402
import hardfault  # noqa: E402


def main():
    latlab, rest = sys.argv[1], sys.argv[2:]
    if len(rest) % 2:
        print("verify.py: LABEL and TRACE.etl come in pairs")
        sys.exit(2)
    failed = False
    for label, path in zip(rest[0::2], rest[1::2]):
        # Both run, so that a trace's report is whole.
        ok = compare.check(latlab, path)
        ok = hardfault.check(latlab, path) and ok
        print(("ok   " if ok else "FAIL ") + label, flush=True)
        failed = failed or not ok
    sys.exit(1 if failed else 0)


main()
