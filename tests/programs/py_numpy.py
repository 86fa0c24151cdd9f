# py_numpy.py - NumPy's matrix product under a known Python line.
import sys
import time

import numpy


def product(a, b):
    return a @ b  # call: product


def main(seconds):
    a = numpy.random.default_rng(1).random((200, 200))
    b = a.T.copy()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        product(a, b)


main(float(sys.argv[1]) if len(sys.argv) > 1 else 1.5)
