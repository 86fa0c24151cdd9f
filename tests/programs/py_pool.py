# py_pool.py - a multiprocessing pool of two processes, started by fork or
# by spawn (argv[1]), mapping a pure-Python function over eight items.
import multiprocessing
import sys


def square_sum(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


if __name__ == "__main__":
    ctx = multiprocessing.get_context(sys.argv[1] if len(sys.argv) > 1 else "fork")
    with ctx.Pool(2) as pool:
        print(sum(pool.map(square_sum, [2000000] * 8)))
