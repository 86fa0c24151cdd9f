# py_split.py - a pure-Python leaf called from two functions, one with
# three times the other's share; it measures on its own thread's CPU clock
# what each took, and prints the shares ("one cpu 25.03%").
import sys
import time


def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def one():
    return leaf(40000)  # call: one


def three():
    return leaf(120000)  # call: three


def main(seconds):
    spent = {"one": 0.0, "three": 0.0}
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.thread_time()
        one()
        t1 = time.thread_time()
        three()
        t2 = time.thread_time()
        spent["one"] += t1 - t0
        spent["three"] += t2 - t1
    total = spent["one"] + spent["three"]
    for name, cpu in spent.items():
        print(f"{name} cpu {100 * cpu / total:.2f}%")


main(float(sys.argv[1]) if len(sys.argv) > 1 else 2.0)
