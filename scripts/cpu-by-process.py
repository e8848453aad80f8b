#!/usr/bin/env python3
"""cpu-by-process.py: where a command's CPU goes, process by process.

    scripts/cpu-by-process.py -- make test

runs the command, samples the CPU time (user + system) of every process on
the machine twice a second, and when the command ends prints the CPU each
test binary (and each build tool) used with everything it started: a
kube-apiserver a test started is charged to that test binary. Processes
that were running before the command are left out, and those too short to
be sampled are counted in one sum. docs/architecture.md's
"where the CPU goes" table comes from it (issue 17).
"""
import collections
import os
import resource
import re
import subprocess
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")


def sample(procs, before):
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                st = f.read()
            fields = st[st.rfind(")") + 2:].split()
            key = (int(p), int(fields[19]))  # pid, start time: a pid may be reused
            if key in before:
                continue
            cpu = (int(fields[11]) + int(fields[12])) / HZ
            if key not in procs:
                with open(f"/proc/{p}/cmdline", "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
                procs[key] = {"pid": int(p), "ppid": int(fields[1]), "cmd": cmd, "cpu": cpu}
            else:
                procs[key]["cpu"] = cpu
        except (OSError, IndexError, ValueError):
            pass  # the process ended between the listing and the read


def owner(p, by_pid):
    """The test binary or build tool p's CPU is charged to."""
    q = p
    for _ in range(64):
        exe = q["cmd"].split(" ")[0]
        m = re.search(r"([\w.-]+)\.test$", exe)
        if m:
            return m.group(1) + ".test"
        q = by_pid.get(q["ppid"])
        if q is None:
            break
    base = p["cmd"].split(" ")[0].rsplit("/", 1)[-1] or "?"
    return ("build: " if base in ("compile", "link", "vet", "asm", "cgo", "go", "gcc", "cc1", "as", "ld", "collect2") else "") + base


def main():
    if len(sys.argv) < 3 or sys.argv[1] != "--":
        sys.exit("usage: scripts/cpu-by-process.py -- COMMAND [ARG...]")
    before = set()
    sample({}, set())  # warm the reads
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/stat") as f:
                    st = f.read()
                before.add((int(p), int(st[st.rfind(")") + 2:].split()[19])))
            except (OSError, IndexError, ValueError):
                pass
    procs = {}
    start = time.time()
    child = subprocess.Popen(sys.argv[2:])
    while child.poll() is None:
        sample(procs, before)
        time.sleep(0.5)
    sample(procs, before)
    wall = time.time() - start
    by_pid = {p["pid"]: p for p in procs.values()}
    total = collections.Counter()
    parts = collections.defaultdict(collections.Counter)
    for p in procs.values():
        o = owner(p, by_pid)
        total[o] += p["cpu"]
        parts[o][p["cmd"].split(" ")[0].rsplit("/", 1)[-1][:30]] += p["cpu"]
    # Processes that start and end between two samples (most compiles) are
    # not seen; the kernel's count of every descendant reaped says how much
    # CPU that was.
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    reaped = ru.ru_utime + ru.ru_stime
    seen = sum(total.values())
    print(f"# {' '.join(sys.argv[2:])}: exit {child.returncode}, {wall:.0f} s wall, {reaped:.0f} s CPU, "
          f"{seen:.0f} s of it in processes sampled, {max(reaped - seen, 0):.0f} s in processes too short to sample", file=sys.stderr)
    for o, c in total.most_common():
        if c >= 0.5:
            detail = ", ".join(f"{k} {v:.0f}" for k, v in parts[o].most_common(4))
            print(f"{c:7.1f} s  {o:28s} {detail}", file=sys.stderr)
    sys.exit(child.returncode)


if __name__ == "__main__":
    main()
