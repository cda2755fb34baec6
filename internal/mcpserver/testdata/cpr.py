"""Asks the terminal where the cursor is (DSR 6) and what it is (DA1), in
raw mode, and prints the answers: a program that hangs unless the terminal
answers."""
import os
import sys
import termios
import tty


def ask(query, end):
    os.write(1, query)
    reply = b""
    while not reply.endswith(end):
        reply += os.read(0, 1)
    return reply


fd = sys.stdin.fileno()
old = termios.tcgetattr(fd)
tty.setraw(fd)
try:
    os.write(1, b"abc")
    pos = ask(b"\x1b[6n", b"R")
    da = ask(b"\x1b[c", b"c")
finally:
    termios.tcsetattr(fd, termios.TCSADRAIN, old)
print()
print("pos=" + pos[2:-1].decode())
print("da=" + repr(da[1:]))
