#!/usr/bin/env python3
"""check_json.py KIND JSON CSV - checks a `culprit report` or `culprit diff`
--format=json document against the same command's --format=csv output,
and against the shape doc/json.md gives: KIND is "report" or "diff".

It must parse as one JSON object; its head must have the members of its
kind; "rows" must be a list of objects whose keys are the CSV header's
columns, in that order; there must be as many rows as the CSV has, and
each value must be the CSV cell's (text for text, a number for a number,
null for an empty cell; numbers within the CSV's printed precision).
Prints "ok N rows" or the first problem, and exits 0 or 1."""
import csv
import json
import math
import sys

HEAD = {
    "report": {"view": str, "database": str, "event": str, "metric": str, "unit": str,
               "total": (int, float), "base": (int, float)},
    "diff": {"view": str, "a": str, "b": str, "event": str, "metric": str, "unit": str,
             "values": str, "by": str, "total_a": (int, float), "total_b": (int, float),
             "compared": (int, float), "beyond_noise": (int, float),
             "noise_sigmas": (int, float)},
}


def fail(msg):
    print(msg)
    sys.exit(1)


def same(cell, value, where):
    """Whether JSON VALUE is what CSV CELL printed."""
    if cell == "":
        return value is None or value == ""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (int, float)):
        try:
            printed = float(cell)
        except ValueError:
            return False
        if not math.isfinite(value):
            return False
        # The CSV prints 4 to 15 significant digits, or 4 decimals.
        return abs(printed - value) <= 1e-4 + 1e-6 * abs(value)
    if isinstance(value, str):
        return value == cell
    fail(f"{where}: a value that is neither text, a number nor null: {value!r}")
    return False


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in HEAD:
        fail(__doc__)
    kind, json_path, csv_path = sys.argv[1:]
    with open(json_path, encoding="utf-8") as f:
        text = f.read()
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        fail(f"{json_path}: not JSON: {e}")
    if not isinstance(doc, dict):
        fail(f"{json_path}: not an object")
    for key, kinds in HEAD[kind].items():
        if not isinstance(doc.get(key), kinds):
            fail(f"{json_path}: member {key!r} missing or of the wrong type: {doc.get(key)!r}")
    if kind == "diff" and doc["view"] != "diff":
        fail(f"{json_path}: view is {doc['view']!r}, not 'diff'")
    keys = list(doc.keys())
    if keys[-1] != "rows" or not isinstance(doc["rows"], list):
        fail(f"{json_path}: 'rows' is not the last member, a list")
    with open(csv_path, newline="", encoding="utf-8") as f:
        table = list(csv.reader(f))
    if not table:
        fail(f"{csv_path}: empty")
    header, body = table[0], table[1:]
    rows = doc["rows"]
    if len(rows) != len(body):
        fail(f"{len(rows)} JSON rows, {len(body)} CSV rows")
    for i, (row, cells) in enumerate(zip(rows, body)):
        if not isinstance(row, dict) or list(row.keys()) != header:
            fail(f"row {i}: keys {list(row)!r}, not the CSV's columns {header!r}")
        for col, cell in zip(header, cells):
            if not same(cell, row[col], f"row {i} {col}"):
                fail(f"row {i} {col}: JSON {row[col]!r}, CSV {cell!r}")
    print(f"ok {len(rows)} rows")


main()
