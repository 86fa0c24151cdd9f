# py_fault.py - Python frames that cannot be read: a caller's frame whose
# code pointer is made to point at unmapped memory, while the program
# spins (samples read the chain) and while it starts a thread (the
# creation's capture reads it), then put back.  The plugin must fault,
# recover, keep the thread's signal mask as it was, and go on sampling:
# prints "mask kept" and "done".
import ctypes
import sys
import threading
import time


def blocked():
    for line in open("/proc/thread-self/status"):
        if line.startswith("SigBlk"):
            return line.split()[1]


def spin(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def broken_caller(work):
    caller = sys._getframe(1)
    # PyFrameObject.f_frame, then _PyInterpreterFrame.f_code (3.11, 3.12).
    frame = ctypes.c_void_p.from_address(id(caller) + 24).value
    code = ctypes.c_void_p.from_address(frame + (32 if sys.version_info < (3, 12) else 0))
    saved = code.value
    code.value = 0x10
    try:
        work()
    finally:
        code.value = saved


def outer():
    before = blocked()
    broken_caller(lambda: spin(0.3))
    t = threading.Thread(target=lambda: None)
    broken_caller(t.start)
    t.join()
    print("mask kept" if blocked() == before else f"mask {before} -> {blocked()}")


outer()
spin(0.5)
print("done")
