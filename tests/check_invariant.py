#!/usr/bin/env python3
"""check_invariant.py - the invariant every view and export of a culprit
database must keep: each sample's value is exactly one frame's (or
inlined frame's) exclusive value, so that every view adds up
to the database's total, metric by metric.

usage: check_invariant.py CULPRIT DB [EVENT]

Checks, for EVENT (default: the first), against metrics.total:
  - procedure_metrics: the exclusive values of all procedures;
  - context_metrics: the exclusive values of frames, inlined frames, roots;
  - the tree: at every frame, inlined frame and root, the inclusive value
    is its exclusive value plus its callees' inclusive values (callees:
    the frames below it, through call sites);
  - culprit report --view=flat (CSV, no threshold): the exclusive column;
  - culprit report --view=callers (CSV): each procedure's callers add up
    to its inclusive value;
  - culprit export: folded (microseconds or samples, one line a leaf
    path), speedscope (a profile per metric) and pprof (a sample type per
    metric) add up to the totals;
  - culprit diff DB DB (every frame): nothing changed, and the frames add
    up to the total; with --inclusive, no frame over the total.
Prints "PASS what" or "FAIL what: the numbers" per check, then "END";
exits 1 if any failed.  tests/run-bodies.sh turns each line into a check.""" 
import csv
import gzip
import io
import json
import sqlite3
import subprocess
import sys

REL = 1e-9


def close(a, b, slack=0.0):
    return abs(a - b) <= max(REL * max(abs(a), abs(b)), slack)


class Checks:
    def __init__(self):
        self.failed = 0

    def say(self, ok, what, detail=""):
        if ok:
            print("PASS " + what)
        else:
            self.failed += 1
            print("FAIL %s: %s" % (what, detail))


def run(culprit, *args):
    p = subprocess.run([culprit] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=False)
    if p.returncode != 0:
        raise RuntimeError("culprit %s: exit %d: %s" %
                           (" ".join(args), p.returncode, p.stderr.decode()[:300]))
    return p.stdout


def rows(csv_bytes):
    """CSV output as dicts by column name (names may hold commas)."""
    return list(csv.DictReader(io.StringIO(csv_bytes.decode())))


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(field number, wire type, value) of a protobuf message."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            v = b[i:i + n]
            i += n
        elif wt == 1:
            v = b[i:i + 8]
            i += 8
        elif wt == 5:
            v = b[i:i + 4]
            i += 4
        else:
            raise ValueError("wire type %d" % wt)
        yield num, wt, v


def pprof_sums(data):
    """The sum of each sample type's values, and the types' names."""
    strings, types, sums = [], [], []
    for num, wt, v in fields(data):
        if num == 6:                                # string_table
            strings.append(v.decode("utf-8", "replace"))
        elif num == 1:                              # sample_type
            types.append(dict((n, x) for n, _, x in fields(v)))
        elif num == 2:                              # sample
            vals = []
            for n, w, x in fields(v):
                if n == 2 and w == 2:               # packed values
                    j = 0
                    while j < len(x):
                        y, j = varint(x, j)
                        vals.append(y - (1 << 64) if y >= 1 << 63 else y)
                elif n == 2:
                    vals.append(x - (1 << 64) if x >= 1 << 63 else x)
            sums.extend([0] * (len(vals) - len(sums)))
            for k, y in enumerate(vals):
                sums[k] += y
    names = [strings[t.get(1, 0)] for t in types]
    return dict(zip(names, sums + [0] * (len(names) - len(sums))))


def main():
    culprit, db = sys.argv[1], sys.argv[2]
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    event = sys.argv[3] if len(sys.argv) > 3 else con.execute(
        "SELECT event FROM events ORDER BY rowid LIMIT 1").fetchone()[0]
    totals = dict(con.execute("SELECT metric, total FROM metrics WHERE event = ?", (event,)))
    nonzero = [m for m, t in totals.items() if t]
    c = Checks()

    # ---- the database itself ----
    for m in nonzero:
        t = totals[m]
        (p,) = con.execute("SELECT coalesce(sum(exclusive), 0) FROM procedure_metrics "
                           "WHERE event = ? AND metric = ?", (event, m)).fetchone()
        c.say(close(p, t), "procedure_metrics %s: exclusive values add up to the total" % m,
              "%.9g of %.9g" % (p, t))
        (f,) = con.execute("SELECT coalesce(sum(m.exclusive), 0) FROM context_metrics m "
                           "JOIN contexts c ON c.id = m.context_id WHERE m.event = ? "
                           "AND m.metric = ? AND c.kind IN ('frame', 'inlined')",
                           (event, m)).fetchone()
        c.say(close(f, t), "context_metrics %s: frames' exclusive values add up to the total" % m,
              "%.9g of %.9g" % (f, t))

    # The tree, for work: each frame's inclusive value is its own plus
    # its callees'.
    kind, parent = {}, {}
    for i, p, k in con.execute("SELECT id, parent_id, kind FROM contexts"):
        kind[i], parent[i] = k, p
    incl, excl = {}, {}
    for i, a, b in con.execute("SELECT context_id, inclusive, exclusive FROM context_metrics "
                               "WHERE event = ? AND metric = 'work'", (event,)):
        incl[i], excl[i] = a, b
    framey = ("frame", "inlined", "root")
    callees = {}
    for i in incl:
        if kind.get(i) not in framey or parent.get(i) is None:
            continue
        p = parent[i]
        while p is not None and kind.get(p) not in framey:
            p = parent[p]
        if p is not None:
            callees[p] = callees.get(p, 0.0) + incl[i]
    bad = [i for i in incl if kind.get(i) in framey and
           not close(incl[i], excl.get(i, 0.0) + callees.get(i, 0.0), 1e-12)]
    c.say(not bad, "tree: at every frame, inclusive work = exclusive + callees' inclusive",
          "%d contexts differ, as %s" % (len(bad), bad[:5]))

    # ---- the reports ----
    work = totals.get("work", 0.0)
    flat = rows(run(culprit, "report", db, "--view=flat", "--format=csv", "--threshold=0",
                    "--event=" + event))
    s = sum(float(r["exclusive"]) for r in flat)
    c.say(close(s, work, 1e-8 * work + 1e-9 * len(flat)), "report --view=flat: the exclusive column adds up "
          "to the total work", "%.9g of %.9g" % (s, work))

    callers = rows(run(culprit, "report", db, "--view=callers", "--format=csv", "--threshold=0",
                       "--event=" + event))
    wrong, proc_incl, got = [], None, 0.0
    for r in callers + [None]:
        if r is None or r["caller_level"] == "0":
            # CSV values have 9 digits.
            if proc_incl is not None and not close(got, proc_incl, 1e-8 * proc_incl + 1e-9):
                wrong.append("%.9g of %.9g" % (got, proc_incl))
            if r is not None:
                proc_incl, got = float(r["inclusive"]), 0.0
        elif r["caller_level"] == "1":
            got += float(r["value"])
    c.say(not wrong, "report --view=callers: each procedure's callers add up to its inclusive "
          "value", "%d procedures differ: %s" % (len(wrong), wrong[:3]))

    # ---- the exports ----
    folded = run(culprit, "export", "--format=folded", "--event=" + event, db).decode()
    lines = folded.splitlines()
    s = sum(int(line.rsplit(" ", 1)[1]) for line in lines)
    c.say(close(s, work * 1e6, len(lines)), "export folded: the lines add up to the total work "
          "(microseconds)", "%d of %.0f" % (s, work * 1e6))

    sp = json.loads(run(culprit, "export", "--format=speedscope", "--event=" + event, db))
    for prof in sp["profiles"]:
        metric = prof["name"].split(" ", 1)[1]
        want = totals.get(metric)
        if want is None or not want:
            continue
        unit = prof.get("unit", "none")
        scale = {"nanoseconds": 1e9, "microseconds": 1e6, "milliseconds": 1e3,
                 "seconds": 1.0}.get(unit, 1.0)
        s = sum(prof["weights"])
        c.say(close(s, want * scale, len(prof["weights"]) * scale * 1e-9 + 1),
              "export speedscope %s: the weights add up to the total" % metric,
              "%.9g of %.9g %s" % (s, want * scale, unit))

    pp = pprof_sums(gzip.decompress(run(culprit, "export", "--format=pprof",
                                        "--event=" + event, db)))
    for name, s in pp.items():
        metric = name.split(" ", 1)[-1] if name not in totals else name
        want = totals.get(metric)
        if want is None or not want:
            continue
        scale = 1e9 if metric != "samples" and work else 1.0
        c.say(close(s, want * scale, 1e3 + 1e-9 * want * scale),
              "export pprof %s: the values add up to the total" % metric,
              "%d of %.0f" % (s, want * scale))

    # ---- the diff ----
    diff = rows(run(culprit, "diff", "--format=csv", "--limit=0", "--event=" + event, db, db))
    sa = sum(float(r["a"]) for r in diff)
    changed = [r for r in diff if float(r["delta"]) != 0]
    c.say(not changed and close(sa, work, 1e-8 * work + 1e-9 * len(diff)),
          "diff DB DB: every frame, each unchanged, adding up to the total work",
          "%d changed; %.9g of %.9g" % (len(changed), sa, work))
    diff = rows(run(culprit, "diff", "--format=csv", "--limit=0", "--inclusive",
                    "--event=" + event, db, db))
    big = [r for r in diff if float(r["a"]) > work * (1 + 1e-8) + 1e-9]
    c.say(not big, "diff --inclusive DB DB: no frame holds more than the total (recursion "
          "counted once)", "%d frames over %.9g: %s" % (len(big), work,
                                                       [r["path"][-60:] for r in big[:2]]))
    print("END")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
