/* SPDX-License-Identifier: MIT */
/*
 * The files of one run (DESIGN.md 4): no output of a run may replace one of
 * its inputs, whatever the path says (a symlink, a hard link, "./x" for
 * "x"), nor a file another of its outputs writes.
 *
 * Inputs are known by device and inode.  rd_infile_open adds every regular
 * file it opens ("input PATH", or "stdin"), so an output written after its
 * inputs were read refuses them with no help from the tool (outfile.c checks
 * each target against this table at open and before each replacement).  A
 * tool also adds the inputs its options name before it reads anything
 * (rd_run_input, with the option's name), and checks its outputs against them
 * then (rd_outfile_check), so that a clash is a usage error before any work,
 * naming both options.  A directory tree read as a whole (--sysroot) is an
 * input too: no output goes anywhere under it.
 *
 * One table for the process, which is one run: rd_cli_init starts it afresh
 * and rd_cli_free forgets it (a harness that runs many tools in one process
 * starts each run clean).  An input deleted during the run keeps its place,
 * so a new file that gets its inode is refused too: a rare refusal, never a
 * lost input.
 */
#ifndef RD_RUNFILES_H
#define RD_RUNFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/*
 * Add path's file ("-": standard input) as the input what (copied; e.g.
 * "--hostfile h", "input in.jsonl") when it is a regular file.  A file that
 * cannot be examined adds nothing: the tool's open says why later.  A file
 * already in the table keeps its first name.  Returns 0 or -ENOMEM.
 */
int rd_run_input(const char *what, const char *path);
/* The same for a file already examined (st from fstat). */
int rd_run_input_stat(const char *what, const struct stat *st);
/* The name of the input that is st's file, or NULL. */
const char *rd_run_input_of(const struct stat *st);

/*
 * Add the directory dir as an input read whole under the name what (e.g.
 * "--sysroot DIR"): nothing under it may be written.  A directory that cannot
 * be examined adds nothing.  Returns 0 or -ENOMEM.
 */
int rd_run_input_tree(const char *what, const char *dir);
/*
 * The name of the input tree that holds the directory dirst, or NULL: dirfd
 * is that directory, walked up to the root through "..".
 */
const char *rd_run_tree_of(int dirfd, const struct stat *dirst);

/*
 * Add an output: its directory (dirst) and name there, and the file itself
 * when it exists (st, else NULL).  When an output added before is the same
 * file (the same file now, or the same name in the same directory), *clash
 * is set to its name and nothing is added.  Returns 0 or -ENOMEM.
 */
int rd_run_output(const char *what, const struct stat *dirst, const char *name,
		  const struct stat *st, const char **clash);

/* Forget every input and output (the start and the end of a run). */
void rd_run_reset(void);

#endif
