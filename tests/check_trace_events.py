#!/usr/bin/env python3
"""check_trace_events.py - what a trace-event consumer (Perfetto,
chrome://tracing) needs of `culprit export --format=perfetto`, checked
against the database's own counts.

usage: check_trace_events.py JSON COUNTS
  COUNTS: lines "TID SAMPLES", the trace table's samples per thread.
Prints one line of findings; tests/run-timeline.sh checks its words."""
import json
import sys


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    with open(sys.argv[2]) as f:
        want = {int(a): int(b) for a, b in (line.split() for line in f if line.strip())}
    named = {e["tid"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    slices = [e for e in events if e["ph"] == "X"]
    # The outermost slices hold every sample once.
    top = {}
    for e in slices:
        if e["args"]["depth"] == 0:
            top[e["tid"]] = top.get(e["tid"], 0) + e["args"]["samples"]
    # Each slice lies within the one a level above it, on its thread.
    nested = True
    stacks = {}
    for e in sorted(slices, key=lambda e: (e["tid"], e["ts"], e["args"]["depth"])):
        stack = stacks.setdefault(e["tid"], [])
        del stack[e["args"]["depth"]:]
        if stack:
            up = stack[-1]
            if not (up["ts"] - 1e-3 <= e["ts"] and
                    e["ts"] + e["dur"] <= up["ts"] + up["dur"] + 1e-3):
                nested = False
        stack.append(e)
    names = {e["name"] for e in slices}
    working = sorted({e["args"]["working"] for e in events if e["ph"] == "C"})
    print("threads", len(named), len(want),
          "samples", top == want,
          "nested", nested,
          "serial_work", "serial_work" in names,
          "idle", "idle:barrier" in names,
          "working", working)


main()
