/* SPDX-License-Identifier: MIT */
/*
 * Files a tool writes (rdma-top --textfile; saved baselines, pictures): the
 * whole file replaced at once, and nothing else ever touched (DESIGN.md 4).
 *
 * The directory is opened once, at rd_outfile_open, and every later step
 * works relative to that descriptor: a directory renamed or swapped for a
 * symlink afterwards cannot steer the writes elsewhere.  Each replacement
 * writes a new temporary file beside the target (".NAME.XXXXXX", created
 * with O_EXCL | O_NOFOLLOW, mode 0666 & ~umask, which no "*.prom" glob
 * matches) and renames it over the target, so a reader sees the old file or
 * the new one, never a part.  The target must be absent or a regular file:
 * a symlink, FIFO, device node, socket or directory there is refused, never
 * followed or replaced.  Nor may it be one of the run's inputs (runfiles.h:
 * the same file through any symlink or hard link), or lie inside a directory
 * the run reads whole; and "-" is standard output to a user, so it names no
 * file here ("./-" does).
 */
#ifndef RD_OUTFILE_H
#define RD_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

struct rd_outfile {
	int dirfd;
	char *name;	/* the target's name in dirfd */
};

/*
 * Before a run reads or writes anything, an output path, named in messages
 * as what ("--svg out.svg"): a usage error when it is empty, "-", the same file as an
 * input of the run (rd_run_input and every file read so far) or as an output
 * checked before it, or inside an input tree.  The path is then one of the
 * run's outputs.  What only rd_outfile_open can tell (no such directory, a
 * symlink there) is left to it.  Returns 0, or -errno with why completing
 * "PATH ...": "is the same file as input in.jsonl; nothing written".
 */
int rd_outfile_check(const char *what, const char *path, char *why, size_t why_len);

/*
 * Open path's directory and check the target.  Returns 0, or -errno with why
 * (one line, without the path) filled in: the directory's own errno
 * ("No such file or directory"), -EISDIR for a path ending in "/" or naming
 * a directory, -EEXIST for a target that exists and is not a regular file
 * ("exists and is a symbolic link: refusing to replace it") or is one of the
 * run's inputs ("the same file as input in.jsonl; nothing written"), -EINVAL
 * for "-".
 */
int rd_outfile_open(struct rd_outfile *of, const char *path, char *why, size_t why_len);

/*
 * Replace the target with what write_fn() puts in a FILE (it returns 0 or
 * -errno).  The target is checked again first, as at open (an input read
 * since is refused too).  Returns 0 or
 * -errno with why filled in ("No space left on device"); the temporary file
 * is removed on failure and the old target is left as it was.
 */
int rd_outfile_replace(struct rd_outfile *of, int (*write_fn)(FILE *fp, void *arg), void *arg,
		       char *why, size_t why_len);

void rd_outfile_close(struct rd_outfile *of);

#endif
