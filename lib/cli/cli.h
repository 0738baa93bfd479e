/* SPDX-License-Identifier: MIT */
/*
 * The common CLI contract (DESIGN.md §2) shared by every tool: the common
 * options, and reporting (one line per error, "prog: warning: ..." for
 * warnings).  This is the only part of the library that writes to stderr:
 * it is the tools' reporting half, kept here so it exists once.
 */
#ifndef RD_CLI_H
#define RD_CLI_H

#include <getopt.h>
#include <stdbool.h>

#include "model/model.h"
#include "output/output.h"
#include "sysroot/sysroot.h"
#include "base/base.h"

#define RD_EXIT_OK 0
#define RD_EXIT_FAIL 1
#define RD_EXIT_USAGE 2

/* Long-only options of the common set. */
enum {
	RD_OPT_SYSROOT = 0x1000,
	RD_OPT_COLOR,
	RD_OPT_RAW,
	RD_OPT_NOHEADINGS,
	RD_OPT_TOOL_BASE = 0x1100,	/* tools number their own long-only options from here */
};

/*
 * Short options of the common set, for a tool's optstring.  A tool's
 * optstring starts with ':' (and the tool sets opterr = 0) so that
 * rd_cli_getopt_error() reports bad options under the tool's own name.
 */
#define RD_COMMON_SHORTOPTS "d:p:jhV"

#define RD_COMMON_LONGOPTS                                                         \
	{ "device", required_argument, NULL, 'd' },                                \
	{ "port", required_argument, NULL, 'p' },                                  \
	{ "json", no_argument, NULL, 'j' },                                        \
	{ "sysroot", required_argument, NULL, RD_OPT_SYSROOT },                    \
	{ "color", optional_argument, NULL, RD_OPT_COLOR },                        \
	{ "colour", optional_argument, NULL, RD_OPT_COLOR },                       \
	{ "help", no_argument, NULL, 'h' },                                        \
	{ "version", no_argument, NULL, 'V' }

/* The last lines of a tool's option list in --help: --color, -h and -V, as every tool has them. */
#define RD_COMMON_USAGE_END                                                        \
	"      --color[=WHEN]    colour: auto (default), always, never\n"              \
	"  -h, --help            this help\n"                                          \
	"  -V, --version         version\n"

/*
 * The table options, for a tool that prints text tables (util-linux's
 * names): its optstring adds RD_TABLE_SHORTOPTS, its longopts
 * RD_TABLE_LONGOPTS; rd_cli_getopt fills cli->table, rd_cli_table_check
 * checks -o against the tool's tables.
 */
#define RD_TABLE_SHORTOPTS "o:"
#define RD_TABLE_LONGOPTS                                                          \
	{ "output", required_argument, NULL, 'o' },                                \
	{ "raw", no_argument, NULL, RD_OPT_RAW },                                  \
	{ "noheadings", no_argument, NULL, RD_OPT_NOHEADINGS }

/* Their lines in a tool's --help; ex: an example list of its columns. */
#define RD_TABLE_USAGE(ex)                                                         \
	"  -o, --output COLS     only these table columns, in this order (headers,\n"    \
	"                        any case: -o " ex ")\n"                                   \
	"      --raw             table cells unaligned, one space apart (blanks \\x20)\n" \
	"      --noheadings      no header line over a table\n"

struct rd_cli {
	const char *prog;
	struct rd_strlist devices;	/* -d, repeatable (also comma lists) */
	unsigned int port;		/* -p, 0 = all */
	bool json;
	bool color;
	const char *color_arg;
	const char *sysroot_dir;
	struct rd_out_table_opts table;	/* -o, --raw, --noheadings */
	struct rd_sysroot sr;
	struct rd_warnings warnings;
	bool want_help, want_version;
	unsigned int scan_flags;	/* RD_SCAN_*; rd_cli_init sets them all */
	/* When set, rd_cli_error also keeps its last message here (a tool that
	 * reports the failure in its own output too: the mesh's JSON lines). */
	char *last_error;
	size_t last_error_len;
	/*
	 * A tool that samples in a loop (rdma-top -b, --textfile) sets this: a
	 * warning is printed when it first appears, and again only after it
	 * went away and came back, not at every interval.
	 */
	bool warn_once;
	struct rd_strlist warned;	/* the warnings of the last flush */
	/*
	 * --nhc (rdma-doctor, rdma-fabric): Node Health Check reads stdout, where
	 * nothing means healthy, so a run that fails before its checks (an error
	 * kept in last_error, which the tool then sets) also prints it there, as
	 * "ERROR: PROG: MESSAGE" (rd_cli_exit).
	 */
	bool nhc;
	/*
	 * An option that takes a value is given once: a second -p, --expect or
	 * --interval is a usage error, never a value silently dropped.  -d is
	 * repeatable everywhere (a list) and --color's last value wins; a tool
	 * lists its own repeatable options here (0-terminated option codes)
	 * before its first rd_cli_getopt.
	 */
	const int *repeatable;
	int seen[32];			/* the value-taking options given so far */
	unsigned int n_seen;
};

void rd_cli_init(struct rd_cli *cli, const char *prog);
void rd_cli_free(struct rd_cli *cli);
/*
 * Handle a common option.  1: handled; 0: not a common option; -1: usage
 * error (already reported).
 */
int rd_cli_common_opt(struct rd_cli *cli, int opt, const char *arg);
/* After getopt: open the sysroot, decide colour.  Returns an exit code or -1 to go on. */
int rd_cli_setup(struct rd_cli *cli);

void rd_cli_error(const struct rd_cli *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Report a usage error with a pointer to --help; returns RD_EXIT_USAGE. */
int rd_cli_usage_error(const struct rd_cli *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * After getopt: --help (usage() on stdout) or --version.  Returns RD_EXIT_OK
 * when one was handled, -1 to go on.
 */
int rd_cli_help_version(const struct rd_cli *cli, void (*usage)(const char *prog));
/*
 * The common end of an option loop: --help or --version (handled: returns
 * RD_EXIT_OK), then at most max operands (-1: any number) at
 * argv[optind..argc); one more is a usage error naming it, with `what`
 * (e.g. "one PEER") said in parentheses when given.  Returns an exit code, or
 * -1 to go on.
 */
int rd_cli_operands(const struct rd_cli *cli, int argc, char **argv, void (*usage)(const char *prog),
		    int max, const char *what);
struct rd_out;
/*
 * The tool's output on stdout: JSON with -j, colour as --color decided, the
 * table options (-o, --raw, --noheadings) set.  NULL after saying "out of
 * memory".
 */
struct rd_out *rd_cli_out(struct rd_cli *cli);
/*
 * The common ending: finish the output (a write error turns success into
 * failure, reported once), print the warnings, free the CLI state.
 */
int rd_cli_exit(struct rd_cli *cli, struct rd_out *o, int ret);
/*
 * The last step of main (rd_cli_exit does it): flush stdout; on a write
 * error now or before, print "prog: write error: <why>" and return
 * failure (ret if already non-zero).  A tool that returns without it is
 * still checked at exit, which then ends the process with _exit.
 */
int rd_cli_stdout_status(int ret);

/*
 * getopt_long with the common options handled here: returns the next
 * tool-specific option, -1 at the end, or RD_CLI_OPT_USAGE after a common
 * option's usage error (already reported).
 */
#define RD_CLI_OPT_USAGE (-2)
int rd_cli_getopt(struct rd_cli *cli, int argc, char **argv, const char *shortopts,
		  const struct option *longopts);

/*
 * A tool option's value was rejected: "invalid value 'ARG' for --NAME" (the
 * long name of opt from longopts, when it has one); returns RD_EXIT_USAGE.
 */
int rd_cli_bad_value(const struct rd_cli *cli, int opt, const char *arg, const struct option *longopts);
/* Report getopt's '?' or ':' result; returns RD_EXIT_USAGE. */
/*
 * --timeout SEC for a file read (rdma-doctor --expect, rdma-fleet's inputs):
 * whole seconds, 1 to 86400, into *ms.  0, or the usage error's exit status.
 */
int rd_cli_file_timeout(const struct rd_cli *cli, const char *arg, int *ms);

/*
 * The kit's one reading of a number option (opt is its name as the user
 * knows it, "--count"): a whole number lo..hi in decimal digits
 * (rd_parse_uint), or a time lo..hi seconds written as seconds or with a
 * unit, 500ms, 2s, 1m (rd_parse_duration).  0, or the usage error's status
 * after "invalid --count '1e3': a whole number from 1 to 100".
 */
int rd_cli_uint(const struct rd_cli *cli, const char *opt, const char *arg, uint64_t lo, uint64_t hi,
		uint64_t *v);
int rd_cli_duration(const struct rd_cli *cli, const char *opt, const char *arg, double lo, double hi,
		    double *secs);

/*
 * The files of a run (base/runfiles.h), named before it reads or writes any.
 * rd_cli_input_file: an option's input (opt NULL: an operand; "-" is
 * stdin); an empty name is a usage error, and the file becomes one of the
 * run's inputs.  rd_cli_output_file, once every input is named: an empty
 * name, "-", or the same file as an input or an earlier output is a usage
 * error naming both ("--svg in.jsonl is the same file as input in.jsonl;
 * nothing written").  Each returns 0, or the exit status to leave with.
 */
int rd_cli_input_file(const struct rd_cli *cli, const char *opt, const char *path);
int rd_cli_output_file(const struct rd_cli *cli, const char *opt, const char *path);

/*
 * --only/--skip ID,...: each item of arg, checked by known() (an id or a
 * group of a tool's check table), added to l.  An empty item ("--only ''",
 * "a,,b") and an unknown id are usage errors naming opt; returns 0, or the
 * exit status to leave with.
 */
/*
 * After getopt, in a tool that prints tables: every -o name a header of one
 * of its tables (sets, n; "unknown column 'x' for -o (known: DEV PORT
 * ...)"), and the table options not with -j (JSON has every field).  0, or
 * the usage error's exit status.
 */
int rd_cli_table_check(const struct rd_cli *cli, const struct rd_out_colset *sets, size_t n);
/* mode prints no table: -o, --raw or --noheadings with it is a usage error (its status, else 0). */
int rd_cli_table_none(const struct rd_cli *cli, const char *mode);
/* Whether -o, --raw or --noheadings was given. */
bool rd_cli_table_opts_given(const struct rd_cli *cli);

int rd_cli_check_ids(const struct rd_cli *cli, struct rd_strlist *l, const char *arg, const char *opt,
		     bool (*known)(const char *id));

int rd_cli_getopt_error(const struct rd_cli *cli, int opt, char **argv);
/* Print and clear the collected warnings. */
void rd_cli_flush_warnings(struct rd_cli *cli);
void rd_cli_print_version(const struct rd_cli *cli);

/*
 * Scan devices honouring -d and -p.  On error prints the one line
 * (unknown device with the known ones, no devices at all with the likely
 * causes, port not found) and returns an exit code; 0 on success.
 */
int rd_cli_scan_devices(struct rd_cli *cli, struct rd_device_list *list);
/* Does port pass the -p filter? */
bool rd_cli_port_selected(const struct rd_cli *cli, const struct rd_port *port);

#endif
