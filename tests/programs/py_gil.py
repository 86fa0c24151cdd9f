# py_gil.py - threads of pure Python (two, or argv[2]), which only one at
# a time can run (the GIL): with two, each waits for it about as long as
# the other runs.
import sys
import threading
import time


def spin(n):
    s = 0
    for i in range(n):
        s += i
    return s


def worker(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        spin(20000)


seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.5
count = int(sys.argv[2]) if len(sys.argv) > 2 else 2
threads = [threading.Thread(target=worker, args=(seconds,)) for _ in range(count)]
for t in threads:
    t.start()
for t in threads:
    t.join()
