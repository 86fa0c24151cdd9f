# py_recurse.py - a Python recursion DEPTH (argv[2]) deep, its leaf busy
# for SECONDS (argv[1]): for the plugin's cost on deep Python stacks.
# Prints the rounds of work the leaf did ("rounds N"): a run that the
# profiler slows does fewer.
import sys
import time

sys.setrecursionlimit(100000)


def down(depth, end):
    if depth:
        return down(depth - 1, end)
    rounds = 0
    while time.monotonic() < end:
        s = 0
        for i in range(1000):
            s += i
        rounds += 1
    return rounds


seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
depth = int(sys.argv[2]) if len(sys.argv) > 2 else 200
print("rounds", down(depth, time.monotonic() + seconds))
