#!/usr/bin/env python3
"""make check-mutants: plant known bugs one at a time and show the suite fails.

Each mutant below is one small, realistic bug (an exit status, a verdict
word, a threshold, a JSON key, a check that skips instead of judging, a
refused path accepted, a limit ignored ...).  For each, a copy of the tree is
mutated, rebuilt, and the host tiers named for it are run; the mutant is
CAUGHT when a tier fails, SURVIVED when every tier passes (the suite cannot
see that bug: a test is missing), STALE when its text no longer occurs
exactly once in the file (the code moved: update the mutant, never drop it
quietly), and BROKEN when the mutated tree does not build (a mutant must be
a bug, not a syntax error).

usage: tests/mutants/run.py [-k] [-j JOBS] [ID...]
  ID...  only these mutants (default: all)
  -k     keep the work tree and print its path
The table is printed at the end; the exit status is 0 only when every
mutant chosen was caught.
"""

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

# id, file, tiers, from-text, to-text, what the bug is.
# tiers: "unit", "cli", "fabric" (the fabric tier: ibsim + OpenSM).
MUTANTS = [
    ("route-credit-loop", "lib/fabric/fabrt.c", "cli",
     "\t\t\t\t\t\trt->n_cycles++;\n",
     "",
     "rdma-fabric never counts a credit loop it found"),
    ("route-one-hole", "lib/fabric/fabckroute.c", "cli",
     "\t\tif (holes) {\n",
     "\t\tif (holes > 1) {\n",
     "route.holes says nothing of a switch with one hole"),
    ("tomo-no-explaining-away", "tools/rdma-fleet/fleettomo.c", "unit",
     "\t\t\tin->bad[obs[i].links[q]]--;\n",
     "",
     "rdma-fleet --fabric counts a suspect's bad pairs again for the next one"),
    ("tomo-one-way", "tools/rdma-fleet/fleettomo.c", "cli",
     "\tif (!rc)\n\t\trc = rd_tomo_route(fab, dn, dp, sl, sn, v, nv, ROUTE_ROOM, why, sizeof(why));\n",
     "",
     "rdma-fleet --fabric walks only the request's route, not the response's"),
    ("version-exit", "lib/cli/cli.c", "cli",
     "\t\trd_cli_print_version(cli);\n\t\treturn RD_EXIT_OK;",
     "\t\trd_cli_print_version(cli);\n\t\treturn 3;",
     "--version exits 3"),
    ("usage-exit", "lib/cli/cli.c", "cli",
     "\tfprintf(stderr, \"Try '%s --help' for more information.\\n\", cli->prog);\n\treturn RD_EXIT_USAGE;",
     "\tfprintf(stderr, \"Try '%s --help' for more information.\\n\", cli->prog);\n\treturn RD_EXIT_FAIL;",
     "a usage error exits 1 instead of 2"),
    ("top-batch-exit", "tools/rdma-top/rdma-top.c", "cli",
     "\tret = rd_top_run_batch(&cli, &pw, o, interval, count);\n",
     "\tret = rd_top_run_batch(&cli, &pw, o, interval, count);\n"
     "\tif (ret == RD_EXIT_OK && !isatty(STDOUT_FILENO))\n\t\tret = RD_EXIT_FAIL;\n",
     "rdma-top's batch mode exits 1 off a terminal"),
    ("unknown-dev-hint", "lib/cli/cli.c", "cli",
     "rd_cli_error(cli, \"%s: no such device (known: %s)\", unknown, known ? known : \"\");",
     "rd_cli_error(cli, \"%s: no such device\", unknown);",
     "an unknown device no longer names the known ones"),
    ("doctor-verdict-word", "lib/doctor/drengine.c", "unit cli",
     "{ \"PASS\", \"SKIP\", \"WARN\", \"FAIL\" }",
     "{ \"OK\", \"SKIP\", \"WARN\", \"FAIL\" }",
     "rdma-doctor says OK where it says PASS"),
    ("fabric-verdict-case", "lib/fabric/fabreport.c", "cli fabric",
     "{ \"PASS\", \"SKIP\", \"WARN\", \"FAIL\" }",
     "{ \"PASS\", \"SKIP\", \"Warn\", \"FAIL\" }",
     "rdma-fabric writes its WARN in another case"),
    ("doctor-json-key", "tools/rdma-doctor/rdma-doctor.c", "cli",
     "rd_out_str(o, RD_JSON, \"verdict\", NULL, rd_dr_status_word(worst));",
     "rd_out_str(o, RD_JSON, \"result\", NULL, rd_dr_status_word(worst));",
     "rdma-doctor -j renames its verdict key"),
    ("events-json-key", "tools/rdma-events/rdma-events.c", "cli",
     "rd_out_str(o, RD_JSON, \"event\", NULL, ev->name);",
     "rd_out_str(o, RD_JSON, \"type\", NULL, ev->name);",
     "rdma-events -j renames its event key"),
    ("doctor-mtu-threshold", "lib/doctor/drchecks.c", "cli",
     "\tif (active < 4096) {",
     "\tif (active < 2048) {",
     "the RoCE MTU check's threshold moved"),
    ("doctor-memlock-threshold", "lib/doctor/drchecks.c", "cli",
     "#define MEMLOCK_MIN (64ull << 20)",
     "#define MEMLOCK_MIN (32ull << 20)",
     "the memlock limit's threshold halved"),
    ("doctor-fail-skips", "lib/doctor/drchecks.c", "cli",
     "rd_dr_emit(c, RD_DR_FAIL, NULL, \"%s is missing (udev did not create it)\", path);",
     "rd_dr_emit(c, RD_DR_SKIP, NULL, \"%s is missing (udev did not create it)\", path);",
     "a missing uverbs node is skipped instead of failed"),
    ("doctor-nothing-selected", "tools/rdma-doctor/rdma-doctor.c", "cli",
     "\t\tret = rd_cli_usage_error(&cli, \"no check selected%s (see --list)\",",
     "\t\tret = RD_EXIT_OK; (void)rd_cli_usage_error(&cli, \"no check selected%s (see --list)\",",
     "selecting no check exits 0"),
    ("outfile-symlink", "lib/base/outfile.c", "cli",
     "\tif (S_ISREG(st.st_mode))\n\t\treturn 0;",
     "\tif (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))\n\t\treturn 0;",
     "an output path that is a symlink is accepted"),
    ("infile-size-limit", "lib/base/infile.c", "unit cli",
     "\tif (f->total > f->lim.max_bytes) {",
     "\tif (f->total > 2 * f->lim.max_bytes) {",
     "an input file may be twice its size limit"),
    ("gid-best-tie", "lib/model/gid.c", "unit cli",
     "} else if (s > best_score) {",
     "} else if (s >= best_score) {",
     "--best: ties pick the higher GID index"),
    ("counter-words", "lib/stats/counters.c", "unit cli",
     "\t\t\tinfo->scale = 4;",
     "\t\t\tinfo->scale = 1;",
     "port_xmit_data/port_rcv_data counted in bytes, not 4-byte words"),
    ("json-control-raw", "lib/output/output.c", "unit cli",
     "\t\tif (c >= 0x20 && c < 0x80 && c != '\"' && c != '\\\\') {",
     "\t\tif (c >= 0x01 && c < 0x80 && c != '\"' && c != '\\\\') {",
     "control characters written raw into JSON strings"),
    ("devmap-miss-exit", "tools/rdma-devmap/rdma-devmap.c", "cli",
     "\t\trd_cli_error(cli, \"%s: no RDMA port uses this netdev\", query);\n\treturn RD_EXIT_FAIL;",
     "\t\trd_cli_error(cli, \"%s: no RDMA port uses this netdev\", query);\n\treturn RD_EXIT_OK;",
     "rdma-devmap's failed reverse lookup exits 0"),
    ("fleet-stdin-error", "tools/rdma-fleet/rdma-fleet.c", "cli",
     "\t\trd_cli_error(cli, \"stdin: %s\", why);\n\t\tret = RD_EXIT_FAIL;",
     "\t\trd_cli_error(cli, \"stdin: %s\", why);\n\t\tret = RD_EXIT_OK;",
     "rdma-fleet --prefix: an unreadable stdin exits 0"),
    ("fabric-degraded-width", "lib/fabric/fabcklink.c", "cli fabric",
     "\t\t\tif (best_lanes && lanes < best_lanes)",
     "\t\t\tif (best_lanes && lanes + 1 < best_lanes / 2)",
     "rdma-fabric no longer sees a link trained below its width"),
    ("hostlist-range-count", "lib/base/hostlist.c", "unit cli",
     "\t\tseg->count += r.hi - r.lo + 1;",
     "\t\tseg->count += r.hi - r.lo;",
     "a host range counts one name too few"),
]

TIERS = {
    "unit": ["tests/run-unit.sh", "{build}", "{res}/unit"],
    "cli": ["tests/cli/run.sh", "{build}", "{res}/cli"],
    "fabric": ["tests/fabric/run.sh", "{build}", "{res}/fabric"],
}


def run(cmd, cwd, log):
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        return subprocess.call(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT)


def failed_lines(log, n=3):
    out = []
    with open(log, errors="replace") as f:
        for line in f:
            if line.startswith("FAIL"):
                out.append(line.strip()[:90])
    return len(out), out[:n]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", action="store_true")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("ids", nargs="*")
    a = ap.parse_args()
    top = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    known = {m[0] for m in MUTANTS}
    if len(known) != len(MUTANTS):
        sys.exit("check-mutants: two mutants share an id")
    bad = [i for i in a.ids if i not in known]
    if bad:
        print("check-mutants: no mutant %s (known: %s)" % (" ".join(bad), " ".join(sorted(known))),
              file=sys.stderr)
        return 2
    chosen = [m for m in MUTANTS if not a.ids or m[0] in a.ids]

    work = tempfile.mkdtemp(prefix="rd-mutants.")
    tree = os.path.join(work, "tree")
    # The tree as it is now (tracked and new files alike), with its build
    # tree: the first build after a mutation recompiles one file.
    os.makedirs(tree)
    skip = [".git", "build/vm", "build/san", "build/fuzz", "build/results", "build/results-quick",
            "build/fixtures", "build/valgrind", "*.deb"]
    tar = "tar -C %s %s -cf - . | tar -C %s -xf -" % (
        shlex.quote(top), " ".join("--exclude=./%s" % x if "/" in x or x.startswith(".") else "--exclude=%s" % x
                      for x in skip), shlex.quote(tree))
    if subprocess.call(tar, shell=True) != 0:
        sys.exit("check-mutants: cannot copy the tree")
    logs = os.path.join(work, "logs")
    os.makedirs(logs)
    build = "build"
    mk = ["make", "--no-print-directory", "-s", "-j%d" % a.j, "check-build"]
    if run(mk, tree, os.path.join(logs, "baseline.log")) != 0:
        print("check-mutants: the unmutated tree does not build (see %s)" % logs, file=sys.stderr)
        return 1
    # The tiers must pass without a mutant: a suite that fails anyway "catches" every
    # mutant and proves nothing.
    for t in sorted({t for m in chosen for t in m[2].split()}):
        res = os.path.join(work, "res-baseline")
        cmd = [c.format(build=build, res=res) for c in TIERS[t]]
        if run(cmd, tree, os.path.join(logs, "baseline.log")) != 0:
            print("check-mutants: the %s tier fails without a mutant (see %s/baseline.log)" % (t, logs),
                  file=sys.stderr)
            return 1
    rows = []
    t_all = time.time()
    for mid, path, tiers, old, new, what in chosen:
        log = os.path.join(logs, mid + ".log")
        fpath = os.path.join(tree, path)
        t0 = time.time()
        try:
            with open(fpath) as f:
                text = f.read()
        except OSError as e:
            rows.append((mid, what, "STALE", "%s: %s" % (path, e.strerror), 0))
            continue
        n = text.count(old)
        if n != 1:
            rows.append((mid, what, "STALE", "%s: its text occurs %d times" % (path, n), 0))
            continue
        with open(fpath, "w") as f:
            f.write(text.replace(old, new))
        try:
            if run(mk, tree, log) != 0:
                rows.append((mid, what, "BROKEN", "does not build", time.time() - t0))
                continue
            caught = []
            for t in tiers.split():
                res = os.path.join(work, "res-" + mid)
                cmd = [c.format(build=build, res=res) for c in TIERS[t]]
                if run(cmd, tree, log) != 0:
                    caught.append(t)
            nfail, first = failed_lines(log, 1)
            if caught:
                rows.append((mid, what, "CAUGHT", "%s: %d FAIL lines, e.g. %s" %
                             ("+".join(caught), nfail, first[0] if first else "?"), time.time() - t0))
            else:
                rows.append((mid, what, "SURVIVED", "every tier passed: %s" % tiers, time.time() - t0))
        finally:
            with open(fpath, "w") as f:
                f.write(text)
            os.utime(fpath)  # newer than the mutant's object: rebuilt next time
        print("%-26s %-8s %4.0f s" % (mid, rows[-1][2], rows[-1][4]), flush=True)

    print()
    print("%-26s %-8s %5s  %s" % ("mutant", "verdict", "time", "the bug, and what caught it"))
    for mid, what, verdict, how, secs in rows:
        print("%-26s %-8s %4.0f s  %s" % (mid, verdict, secs, what))
        print("%-26s %-8s %5s    %s" % ("", "", "", how))
    caught = sum(1 for r in rows if r[2] == "CAUGHT")
    print("\n%d of %d mutants caught (%.0f s); logs: %s" % (caught, len(rows), time.time() - t_all, logs))
    if a.k:
        print("work tree kept: %s" % work)
    else:
        shutil.rmtree(tree, ignore_errors=True)
    return 0 if caught == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
