#!/usr/bin/env python3
"""tests/pty_drive.py - type into a program through a pseudo-terminal and
print what the terminal showed.  Used by tests/repl.test to drive the
interactive adcalc session (GNU readline) like a person at a keyboard.

    pty_drive.py [--timeout SEC] SCRIPT -- COMMAND [ARG...]

SCRIPT is a file of steps, one per line:

    > TEXT     type TEXT and press Enter, then wait for a new prompt (or the end)
    | TEXT     type TEXT without Enter, then wait until the screen is quiet
    ^D         press Ctrl-D (end of input), then wait for the end (or a prompt)
    # ...      a comment (blank lines are ignored too)

In TEXT, \\t is a Tab, \\a Ctrl-A, \\u Ctrl-U, \\e Escape,
\\xHH the byte HH, \\\\ a backslash.  After the script the
driver waits for the program to exit (closing the terminal if it does
not), then prints the transcript with \\r\\n and lone \\r turned into \\n,
followed by one line "[exit N]" (or "[signal N]").  A step that times out
is reported on stderr as "pty_drive: timeout ..." with exit status 2; a
program that never ends is killed, and one that ends before the script
does is reported: both give status 3.

The child runs with the environment it is given (tests set TERM=dumb,
HOME and INPUTRC); its terminal is 80x24."""
import errno
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time

PROMPTS = (b"adcalc> ", b"...> ")
QUIET = 0.3          # seconds without output that count as "settled"


def usage():
    sys.stderr.write("usage: pty_drive.py [--timeout SEC] SCRIPT -- COMMAND [ARG...]\n")
    sys.exit(64)


def unescape(s):
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and s[i + 1:i + 2] == "x" and len(s) >= i + 4:
            out.append(chr(int(s[i + 2:i + 4], 16)))
            i += 4
        elif c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            out.append({"t": "\t", "a": "\x01", "u": "\x15", "\\": "\\", "e": "\x1b"}.get(n, "\\" + n))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


class Child:
    def __init__(self, argv, timeout):
        self.timeout = timeout
        self.buf = bytearray()
        self.status = None
        pid, fd = pty.fork()
        if pid == 0:
            try:
                # the size is set before the program starts: set later, it
                # would be a SIGWINCH, and readline would redraw its line
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
                os.execvp(argv[0], argv)
            except OSError as e:
                os.write(2, ("pty_drive: cannot run %s: %s\n" % (argv[0], e)).encode())
            os._exit(127)
        self.pid, self.fd = pid, fd

    def _read(self, wait):
        """reads what is there within wait seconds; False at end of output"""
        r, _, _ = select.select([self.fd], [], [], wait)
        if not r:
            return True
        try:
            data = os.read(self.fd, 4096)
        except OSError as e:
            if e.errno == errno.EIO:   # the child closed the terminal
                return False
            raise
        if not data:
            return False
        self.buf += data
        return True

    def prompts(self):
        b = bytes(self.buf)
        return sum(b.count(p) for p in PROMPTS)

    def settle(self, what, mode, before):
        """reads until the step's effect is on the screen; False when the
        child has closed the terminal.  mode "prompt": a prompt more than
        before (the count of prompts before the step) and the screen ends
        with it; "quiet": some output, then QUIET seconds without any (or
        2 s without any output at all)"""
        deadline = time.monotonic() + self.timeout
        start_len = len(self.buf)
        last_len, last_change = start_len, time.monotonic()
        while True:
            if time.monotonic() > deadline:
                sys.stderr.write("pty_drive: timeout after %s; screen so far:\n%s\n"
                                 % (what, normalize(bytes(self.buf)).decode("latin-1")))
                self.kill()
                sys.exit(2)
            if not self._read(0.02):
                return False
            if len(self.buf) != last_len:
                last_len, last_change = len(self.buf), time.monotonic()
                continue
            quiet = time.monotonic() - last_change
            if mode == "prompt":
                if self.prompts() > before and bytes(self.buf).endswith(PROMPTS) and quiet >= 0.05:
                    return True
            elif len(self.buf) > start_len and quiet >= QUIET:
                return True
            elif len(self.buf) == start_len and quiet >= 2.0:
                return True

    def send(self, data):
        os.write(self.fd, data)

    def wait(self):
        """reads until the child closes the terminal, then reaps it"""
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline and self._read(0.05):
            pass
        while time.monotonic() < deadline:
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = st
                break
            time.sleep(0.02)
        if self.status is None:
            self.kill()
            sys.stderr.write("pty_drive: the program did not end\n")
            sys.stdout.write(normalize(bytes(self.buf)).decode("latin-1"))
            sys.exit(3)
        os.close(self.fd)

    def kill(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except OSError:
            pass


def normalize(b):
    return b.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def main():
    args = sys.argv[1:]
    timeout = 10.0
    if args[:1] == ["--timeout"]:
        timeout = float(args[1])
        args = args[2:]
    if len(args) < 3 or args[1] != "--":
        usage()
    with open(args[0], encoding="utf-8") as f:
        steps = f.read().split("\n")
    child = Child(args[2:], timeout)
    child.settle("start", "prompt", 0)
    ended = False
    status = 0
    for n, step in enumerate(steps, 1):
        if not step.strip() or step.startswith("#"):
            continue
        what = "step %d (%s)" % (n, step)
        if ended:
            sys.stderr.write("pty_drive: the program ended before %s\n" % what)
            status = 3
            break
        before = child.prompts()
        if step.startswith("> ") or step == ">":
            child.send(unescape(step[2:]).encode() + b"\r")
            ended = not child.settle(what, "prompt", before)
        elif step.startswith("| "):
            child.send(unescape(step[2:]).encode())
            ended = not child.settle(what, "quiet", before)
        elif step == "^D":
            child.send(b"\x04")
            ended = not child.settle(what, "prompt", before)
        else:
            sys.stderr.write("pty_drive: bad step %d: %s\n" % (n, step))
            child.kill()
            sys.exit(64)
    child.wait()
    sys.stdout.write(normalize(bytes(child.buf)).decode("latin-1"))
    st = child.status
    if os.WIFEXITED(st):
        sys.stdout.write("[exit %d]\n" % os.WEXITSTATUS(st))
    else:
        sys.stdout.write("[signal %d]\n" % os.WTERMSIG(st))
    sys.exit(status)


if __name__ == "__main__":
    main()
