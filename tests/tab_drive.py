#!/usr/bin/env python3
"""tests/tab_drive.py - type command lines with Tab into an interactive
shell through a pseudo-terminal, and keep what each did: the command line
after the keys, and what the terminal showed meanwhile (a list of
candidates).  Used by tests/completion.test for bash, zsh and fish.

    tab_drive.py [--timeout SEC] [--size ROWSxCOLS] SCRIPT OUTDIR -- COMMAND [ARG...]

The shell must print the prompt "adcalc> " and bind Ctrl-X Ctrl-P to
print its command line as a line "<<<LINE>>>" and then empty the line
(tests/completion.test sets this up for each shell; the binding empties
the line itself because zsh may drop a Ctrl-U typed just after it).

The driver waits for the first prompt, then for each line of SCRIPT
(blank lines and lines starting with '#' skipped) types the line's keys,
written as for pty_drive.py (\\t is a Tab, \\u Ctrl-U, \\e Escape, \\xHH
the byte HH, \\\\ a backslash), then Ctrl-X Ctrl-P, and waits until the
next "<<<...>>>" line shows.  The shell handles keys in order, so by
then everything the Tab did is on the screen: nothing waits for the
screen to be quiet; the timeout (10 s) only limits how long the shell may
take.  Step N's results are OUTDIR/N.line (the command line, without a
newline) and OUTDIR/N.screen (what was shown since the step before,
without terminal escapes, \\r as a line end).  At the end it types Ctrl-D
and ends the shell.  Exit status: 0; 2 when a
step or the first prompt timed out (the screen so far on stderr)."""
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import fcntl
import time

# the keys of a step are written as pty_drive.py's are (no __pycache__
# left in the source tree)
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pty_drive import unescape  # noqa: E402

PROMPT = b"adcalc> "
DUMP = b"\x18\x10"        # Ctrl-X Ctrl-P
LINE_RE = re.compile(rb"<<<(.*?)>>>", re.S)
ESC_RE = re.compile(rb"\x1b\[[0-9;?<=>]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78cDEHMNOZ]")


def plain(b):
    """the text of terminal output: escapes removed, \\r\\n and \\r as \\n,
    other control characters (the bell, backspaces) dropped"""
    b = ESC_RE.sub(b"", b).replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return bytes(c for c in b if c >= 32 or c in (9, 10))


def main():
    args = sys.argv[1:]
    timeout, rows, cols = 10.0, 24, 80
    while args[:1] in (["--timeout"], ["--size"]):
        if args[0] == "--timeout":
            timeout = float(args[1])
        else:
            rows, cols = (int(x) for x in args[1].split("x"))
        args = args[2:]
    if len(args) < 4 or args[2] != "--":
        sys.stderr.write("usage: tab_drive.py [--timeout SEC] [--size ROWSxCOLS] SCRIPT OUTDIR -- COMMAND [ARG...]\n")
        sys.exit(64)
    script, outdir, argv = args[0], args[1], args[3:]
    with open(script, encoding="utf-8") as f:
        steps = [s for s in f.read().split("\n") if s.strip() and not s.startswith("#")]

    pid, fd = pty.fork()
    if pid == 0:
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            os.execvp(argv[0], argv)
        except OSError as e:
            os.write(2, ("tab_drive: cannot run %s: %s\n" % (argv[0], e)).encode())
        os._exit(127)

    buf = bytearray()

    def read_until(done, what):
        deadline = time.monotonic() + timeout
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                sys.stderr.write("tab_drive: timeout waiting for %s; screen so far:\n%s\n"
                                 % (what, plain(bytes(buf)).decode("utf-8", "replace")))
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                sys.exit(2)
            r, _, _ = select.select([fd], [], [], left)
            if r:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    data = b""
                if not data:
                    sys.stderr.write("tab_drive: the shell ended while waiting for %s; screen so far:\n%s\n"
                                     % (what, plain(bytes(buf)).decode("utf-8", "replace")))
                    os.waitpid(pid, 0)
                    sys.exit(2)
                buf.extend(data)

    read_until(lambda: PROMPT in buf, "the first prompt")
    start = len(buf)
    for n, step in enumerate(steps, 1):
        os.write(fd, unescape(step).encode() + DUMP)
        m = []

        def shown():
            m[:] = [LINE_RE.search(buf, start)]
            return m[0] is not None
        read_until(shown, "step %d (%s)" % (n, step))
        with open(os.path.join(outdir, "%d.line" % n), "wb") as f:
            f.write(m[0].group(1))
        with open(os.path.join(outdir, "%d.screen" % n), "wb") as f:
            f.write(plain(bytes(buf[start:m[0].start()])))
        start = m[0].end()
    os.write(fd, b"\x04")
    # the shell ends (or is ended)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                if not os.read(fd, 65536):
                    break
            except OSError:
                break
        if os.waitpid(pid, os.WNOHANG)[0]:
            return
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
