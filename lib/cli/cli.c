// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/output.h"
#include "base/base.h"

#ifndef RD_VERSION
#define RD_VERSION "unknown"
#endif

/*
 * Output to a full disk, a closed stdout or a pipe whose reader is gone
 * shows only when the buffered data is flushed, often at exit: like GNU's
 * close_stdout, check stdout once at exit in every tool (normal output,
 * --help, --version alike), report "prog: write error: <why>" and turn a
 * success into failure.  Registered by rd_cli_init.
 */
static const char *exit_prog;
static bool stdout_checked;

static void report_write_error(int err)
{
	if (!err)
		err = rd_first_write_error();
	if (err)
		fprintf(stderr, "%s: write error: %s\n", exit_prog, strerror(err));
	else
		fprintf(stderr, "%s: write error\n", exit_prog);
}

int rd_cli_stdout_status(int ret)
{
	int err = 0;

	if (stdout_checked)
		return ret;
	stdout_checked = true;
	errno = 0;
	if (fflush(stdout) != 0)
		err = errno;
	if (!err && !ferror(stdout))
		return ret;
	report_write_error(err);
	return ret ? ret : RD_EXIT_FAIL;
}

/* The fallback for a path that left main without rd_cli_stdout_status. */
static void close_stdout_at_exit(int status, void *arg)
{
	bool prev_fail = ferror(stdout) != 0;
	int err = 0;

	(void)arg;
	if (stdout_checked)
		return;
	errno = 0;
	if (fflush(stdout) != 0)
		err = errno;
	/* Nothing pending and nothing failed: a closed stdout (EBADF) is fine. */
	if (close(STDOUT_FILENO) != 0 && errno != EBADF && !err)
		err = errno;
	if (!prev_fail && !err)
		return;
	report_write_error(err);
	_exit(status ? status : RD_EXIT_FAIL);
}

void rd_cli_init(struct rd_cli *cli, const char *prog)
{
	memset(cli, 0, sizeof(*cli));
	cli->prog = prog;
	if (!exit_prog) {
		exit_prog = prog;
		on_exit(close_stdout_at_exit, NULL);
	}
	cli->scan_flags = RD_SCAN_ALL;
	rd_run_reset();	/* a new run: no inputs or outputs yet (runfiles.h) */
}

void rd_cli_free(struct rd_cli *cli)
{
	rd_strlist_free(&cli->devices);
	rd_warnings_free(&cli->warnings);
	rd_strlist_free(&cli->warned);
	rd_run_reset();
}

/*
 * One line on stderr: "prog: <prefix><message>".  Names and values in the
 * message come from sysfs and the command line; their control bytes are
 * escaped (rd_text_escape) like on stdout, and the message stays one line.
 */
static void print_line(const struct rd_cli *cli, const char *prefix, const char *msg)
{
	char *e = rd_text_escape(msg, false);

	fprintf(stderr, "%s: %s%s\n", cli->prog, prefix, e ? e : msg);
	free(e);
}

static void vprint_line(const struct rd_cli *cli, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
static void vprint_line(const struct rd_cli *cli, const char *fmt, va_list ap)
{
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0) {
		fprintf(stderr, "%s: %s\n", cli->prog, fmt);
		return;
	}
	print_line(cli, "", msg);
	if (cli->last_error && cli->last_error_len)
		rd_strlcpy(cli->last_error, msg, cli->last_error_len);
	free(msg);
}

void rd_cli_error(const struct rd_cli *cli, const char *fmt, ...)
{
	va_list ap;

	if (fflush(stdout) != 0)
		rd_write_error(errno);
	va_start(ap, fmt);
	vprint_line(cli, fmt, ap);
	va_end(ap);
}

int rd_cli_usage_error(const struct rd_cli *cli, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint_line(cli, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", cli->prog);
	return RD_EXIT_USAGE;
}

void rd_cli_flush_warnings(struct rd_cli *cli)
{
	if (fflush(stdout) != 0)
		rd_write_error(errno);
	for (size_t i = 0; i < cli->warnings.msgs.n; i++)
		if (!cli->warn_once || !rd_strlist_has(&cli->warned, cli->warnings.msgs.v[i]))
			print_line(cli, "warning: ", cli->warnings.msgs.v[i]);
	if (cli->warn_once) {
		/* This flush's set is the next one's memory (a fact that went away is forgotten). */
		rd_strlist_free(&cli->warned);
		cli->warned = cli->warnings.msgs;
		memset(&cli->warnings.msgs, 0, sizeof(cli->warnings.msgs));
	}
	rd_warnings_free(&cli->warnings);
}

void rd_cli_print_version(const struct rd_cli *cli)
{
	printf("%s (rdma-diag) %s\n", cli->prog, RD_VERSION);
}

static bool valid_name(const char *s)
{
	if (!*s || strlen(s) >= 64 || strchr(s, '/'))
		return false;
	return true;
}

/* A file as messages name it: "--hostfile h", or "input in.jsonl" for an operand ("-": stdin). */
static char *input_name(const char *opt, const char *path)
{
	char *what;

	if (!opt && strcmp(path, "-") == 0)
		return strdup("stdin");
	if (opt ? asprintf(&what, "%s %s", opt, path) < 0 : asprintf(&what, "input %s", path) < 0)
		return NULL;
	return what;
}

static int input_tree(const struct rd_cli *cli, const char *opt, const char *dir)
{
	char *what = input_name(opt, dir);
	int rc = what ? rd_run_input_tree(what, dir) : -ENOMEM;

	free(what);
	if (rc)
		rd_cli_error(cli, "out of memory");
	return rc;
}

int rd_cli_common_opt(struct rd_cli *cli, int opt, const char *arg)
{
	uint64_t port;

	switch (opt) {
	case 'd': {
		/* Repeatable, and "-d a,b" works too. */
		char *copy, *p, *tok;

		/*
		 * An empty name ("-d ''", "-d \"$DEV\"" with DEV unset, "-d a,,b")
		 * is a mistake, not "every device".
		 */
		if (!*arg) {
			rd_cli_usage_error(cli, "empty device name (give a name, e.g. -d mlx5_0)");
			return -1;
		}
		copy = strdup(arg);
		if (!copy)
			return -1;
		for (p = copy; (tok = strsep(&p, ",")) != NULL;) {
			if (!*tok) {
				rd_cli_usage_error(cli, "empty device name in '%s' (names separated by one comma)",
						   arg);
				free(copy);
				return -1;
			}
			if (!valid_name(tok)) {
				rd_cli_usage_error(cli, "invalid device name '%s'", tok);
				free(copy);
				return -1;
			}
			rd_strlist_add_unique(&cli->devices, tok);
		}
		free(copy);
		return 1;
	}
	case 'p':
		if (rd_parse_uint(arg, &port) || port == 0 || port > 255) {
			rd_cli_usage_error(cli, "invalid port '%s' (a number 1-255)", arg);
			return -1;
		}
		cli->port = (unsigned int)port;
		return 1;
	case 'j':
		cli->json = true;
		return 1;
	case RD_OPT_SYSROOT:
		/* An empty path would read the live system, the opposite of what was asked. */
		if (!*arg) {
			rd_cli_usage_error(cli, "--sysroot needs a directory (an empty path is not one)");
			return -1;
		}
		cli->sysroot_dir = arg;
		/* Read whole: no output of the run may go inside it (runfiles.h). */
		if (input_tree(cli, "--sysroot", arg))
			return -1;
		return 1;
	case RD_OPT_COLOR:
		cli->color_arg = arg ? arg : "always";
		if (strcmp(cli->color_arg, "auto") != 0 && strcmp(cli->color_arg, "always") != 0 &&
		    strcmp(cli->color_arg, "never") != 0) {
			rd_cli_usage_error(cli, "invalid --color '%s' (auto, always or never)", arg);
			return -1;
		}
		return 1;
	case 'o':
		if (!*arg) {
			rd_cli_usage_error(cli, "-o needs column names (e.g. -o dev,port,state)");
			return -1;
		}
		cli->table.columns = arg;
		return 1;
	case RD_OPT_RAW:
		cli->table.raw = true;
		return 1;
	case RD_OPT_NOHEADINGS:
		cli->table.noheadings = true;
		return 1;
	case 'h':
		cli->want_help = true;
		return 1;
	case 'V':
		cli->want_version = true;
		return 1;
	default:
		return 0;
	}
}

int rd_cli_setup(struct rd_cli *cli)
{
	int ret = rd_sysroot_init(&cli->sr, cli->sysroot_dir);

	if (ret) {
		rd_cli_error(cli, "%s: cannot use as --sysroot: %s", cli->sysroot_dir, strerror(-ret));
		return RD_EXIT_FAIL;
	}
	/* A common slip: --sysroot X/sys, pointing at sys/ rather than the root above it. */
	if (!rd_sysroot_is_live(&cli->sr) && rd_sys_check_dir(&cli->sr, "/sys") != 0 &&
	    rd_sys_check_dir(&cli->sr, "/class/infiniband") == 0) {
		const char *slash = strrchr(cli->sr.root, '/');
		const char *base = slash ? slash + 1 : cli->sr.root;
		char *real = realpath(cli->sr.root, NULL);
		char *rslash = real ? strrchr(real, '/') : NULL;

		if (strcmp(base, "sys") == 0)
			rd_cli_error(cli, "%s: cannot use as --sysroot: it is a sys/ directory, not the "
				     "root above it (did you mean --sysroot %.*s?)", cli->sr.root,
				     slash ? (int)(slash == cli->sr.root ? 1 : slash - cli->sr.root) : 1,
				     slash ? cli->sr.root : ".");
		else if (rslash && strcmp(rslash + 1, "sys") == 0)	/* ".", "sys/class/.." */
			rd_cli_error(cli, "%s: cannot use as --sysroot: it is a sys/ directory, not the "
				     "root above it (did you mean --sysroot %.*s?)", cli->sr.root,
				     (int)(rslash == real ? 1 : rslash - real), real);
		else
			rd_cli_error(cli, "%s: cannot use as --sysroot: it holds class/infiniband but no "
				     "sys/ (give the directory that contains sys/)", cli->sr.root);
		free(real);
		return RD_EXIT_FAIL;
	}
	if (rd_color_mode(cli->color_arg, STDOUT_FILENO, &cli->color))
		return RD_EXIT_USAGE;
	return -1;
}

bool rd_cli_table_opts_given(const struct rd_cli *cli)
{
	return cli->table.columns || cli->table.raw || cli->table.noheadings;
}

int rd_cli_table_none(const struct rd_cli *cli, const char *mode)
{
	if (!rd_cli_table_opts_given(cli))
		return 0;
	return rd_cli_usage_error(cli, "%s prints no table: not with %s", mode,
				  cli->table.columns ? "-o" : cli->table.raw ? "--raw" : "--noheadings");
}

int rd_cli_table_check(const struct rd_cli *cli, const struct rd_out_colset *sets, size_t n)
{
	char *bad = NULL, *known;
	int rc;

	if (cli->json && rd_cli_table_opts_given(cli))
		return rd_cli_usage_error(cli, "%s shapes text tables; not with -j (JSON has every field)",
					  cli->table.columns ? "-o" : cli->table.raw ? "--raw" : "--noheadings");
	if (!cli->table.columns)
		return 0;
	rc = rd_out_columns_check(cli->table.columns, sets, n, &bad);
	if (rc == -ENOMEM) {
		rd_cli_error(cli, "out of memory");
		return RD_EXIT_FAIL;
	}
	if (rc == -EINVAL)
		rc = rd_cli_usage_error(cli, "empty column name in -o '%s' (names separated by one comma)",
					cli->table.columns);
	else if (rc) {
		known = rd_out_columns_known(sets, n);
		rc = rd_cli_usage_error(cli, "unknown column '%s' for -o (known: %s)", bad,
					known ? known : "?");
		free(known);
	}
	free(bad);
	return rc;
}

int rd_cli_uint(const struct rd_cli *cli, const char *opt, const char *arg, uint64_t lo, uint64_t hi,
		uint64_t *v)
{
	uint64_t x;

	if (rd_parse_uint(arg, &x) || x < lo || x > hi)
		return rd_cli_usage_error(cli, "invalid %s '%s': a whole number from %llu to %llu", opt, arg,
					  (unsigned long long)lo, (unsigned long long)hi);
	*v = x;
	return 0;
}

int rd_cli_duration(const struct rd_cli *cli, const char *opt, const char *arg, double lo, double hi,
		    double *secs)
{
	double x;

	if (rd_parse_duration(arg, &x) || x < lo || x > hi)
		return rd_cli_usage_error(cli, "invalid %s '%s': a time in seconds (2, 0.5) or with a "
					  "unit (500ms, 2s, 1m), from %.10g to %.10g s", opt, arg, lo, hi);
	*secs = x;
	return 0;
}

int rd_cli_file_timeout(const struct rd_cli *cli, const char *arg, int *ms)
{
	double secs = 0;
	int ret = rd_cli_duration(cli, "--timeout", arg, 0.001, 86400, &secs);

	if (!ret)
		*ms = (int)(secs * 1000 + 0.5);
	return ret;
}

int rd_cli_input_file(const struct rd_cli *cli, const char *opt, const char *path)
{
	char *what;
	int rc;

	if (!*path)
		return opt ? rd_cli_usage_error(cli, "%s: an empty file name", opt) :
			     rd_cli_usage_error(cli, "an empty file name among the inputs");
	what = input_name(opt, path);
	rc = what ? rd_run_input(what, path) : -ENOMEM;
	free(what);
	if (rc) {
		rd_cli_error(cli, "out of memory");
		return RD_EXIT_FAIL;
	}
	return 0;
}

int rd_cli_output_file(const struct rd_cli *cli, const char *opt, const char *path)
{
	char why[512], *what;
	int rc;

	if (!*path)
		return rd_cli_usage_error(cli, "%s: an empty file name", opt);
	what = input_name(opt, path);
	rc = what ? rd_outfile_check(what, path, why, sizeof(why)) : -ENOMEM;
	free(what);
	if (rc == -ENOMEM) {
		rd_cli_error(cli, "out of memory");
		return RD_EXIT_FAIL;
	}
	return rc ? rd_cli_usage_error(cli, "%s %s %s", opt, path, why) : 0;
}

int rd_cli_check_ids(const struct rd_cli *cli, struct rd_strlist *l, const char *arg, const char *opt,
		     bool (*known)(const char *id))
{
	char *copy, *save = NULL;
	int ret = 0;

	/* strtok_r would pass over an empty item: "--only ''" must not mean every check. */
	if (rd_list_has_empty_item(arg))
		return rd_cli_usage_error(cli, "%s: an empty check id (see --list)", opt);
	copy = strdup(arg);
	if (!copy) {
		rd_cli_error(cli, "out of memory");
		return RD_EXIT_FAIL;
	}
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!known(t)) {
			ret = rd_cli_usage_error(cli, "%s: unknown check '%s' (see --list)", opt, t);
			break;
		}
		if (rd_strlist_add(l, t)) {
			rd_cli_error(cli, "out of memory");
			ret = RD_EXIT_FAIL;
			break;
		}
	}
	free(copy);
	return ret;
}

int rd_cli_getopt_error(const struct rd_cli *cli, int opt, char **argv)
{
	if (opt == ':')
		return rd_cli_usage_error(cli, "option '%s' needs an argument", argv[optind - 1]);
	/* A long option given a value it does not take: getopt sets optopt to its code. */
	if (optopt && optind > 0 && strncmp(argv[optind - 1], "--", 2) == 0 &&
	    strchr(argv[optind - 1], '=')) {
		const char *a = argv[optind - 1];

		return rd_cli_usage_error(cli, "option '%.*s' takes no argument",
					  (int)(strchr(a, '=') - a), a);
	}
	if (optopt > 0 && optopt < 128 && isprint(optopt))
		return rd_cli_usage_error(cli, "invalid option -- '%c'", optopt);
	return rd_cli_usage_error(cli, "unrecognized option '%s'", argv[optind - 1]);
}

bool rd_cli_port_selected(const struct rd_cli *cli, const struct rd_port *port)
{
	return !cli->port || cli->port == port->num;
}

static void report_no_devices(struct rd_cli *cli)
{
	if (!rd_sysroot_is_live(&cli->sr)) {
		rd_cli_error(cli, "no RDMA devices under %s/sys/class/infiniband", cli->sr.root);
		return;
	}
	rd_cli_error(cli, "no RDMA devices found: no kernel RDMA driver has registered a device "
			  "(load it, e.g. mlx5_ib, or 'rdma link add rxe0 type rxe netdev eth0' "
			  "for soft-RoCE; check 'dmesg')");
}

/*
 * The names under the class directory that are devices a scan would read:
 * an entry that is a dangling link or not a directory is skipped by the
 * scan, so it is not offered as a "known" device either.
 */
static void readable_device_names(const struct rd_cli *cli, struct rd_strlist *out)
{
	struct rd_strlist names = { 0 };

	rd_device_names(&cli->sr, &names);
	for (size_t i = 0; i < names.n; i++)
		if (rd_sys_check_dir(&cli->sr, "/sys/class/infiniband/%s", names.v[i]) == 0 &&
		    rd_strlist_add(out, names.v[i]) != 0)
			break;
	rd_strlist_free(&names);
}

/*
 * A device named with -d that is listed but cannot be read (a dangling link
 * in a copied tree, a file instead of a directory): say what is wrong with
 * it, rather than "no RDMA devices" after the scan skipped it.
 */
static int check_named_devices(struct rd_cli *cli)
{
	struct rd_strlist names = { 0 };
	int ret = 0;

	if (!cli->devices.n || rd_device_names(&cli->sr, &names) != 0)
		goto out;
	for (size_t i = 0; i < cli->devices.n; i++) {
		const char *name = cli->devices.v[i];
		char path[RD_PATH_MAX];
		int why;

		if (!rd_strlist_has(&names, name))
			continue;	/* unknown: the scan reports it with the known ones */
		why = rd_sys_check_dir(&cli->sr, "/sys/class/infiniband/%s", name);
		if (!why)
			continue;
		rd_sys_resolve(&cli->sr, path, sizeof(path), "/sys/class/infiniband/");
		rd_cli_error(cli, "%s: cannot read this device: %s (%s%s)", name,
			     why == -ENOTDIR ? "not a directory" : rd_read_strerror(why), path, name);
		ret = RD_EXIT_FAIL;
		break;
	}
out:
	rd_strlist_free(&names);
	return ret;
}

int rd_cli_scan_devices(struct rd_cli *cli, struct rd_device_list *list)
{
	const char *unknown = NULL;
	int ret;

	list->v = NULL;
	list->n = 0;
	ret = check_named_devices(cli);
	if (ret)
		return ret;
	ret = rd_device_scan_flags(&cli->sr, &cli->devices, list, &unknown, &cli->warnings,
				   cli->scan_flags);
	if (ret == -ENODEV && unknown) {
		struct rd_strlist names = { 0 };
		char *known;

		readable_device_names(cli, &names);
		known = rd_strlist_join(&names, " ");
		if (names.n)
			rd_cli_error(cli, "%s: no such device (known: %s)", unknown, known ? known : "");
		else
			rd_cli_error(cli, "%s: no such device (no RDMA devices at all)", unknown);
		free(known);
		rd_strlist_free(&names);
		return RD_EXIT_FAIL;
	}
	if (ret) {
		rd_cli_error(cli, "cannot list RDMA devices: %s", strerror(-ret));
		return RD_EXIT_FAIL;
	}
	if (list->n == 0) {
		rd_cli_flush_warnings(cli);
		report_no_devices(cli);
		return RD_EXIT_FAIL;
	}
	if (cli->port) {
		bool any = false;

		for (unsigned int i = 0; i < list->n; i++) {
			struct rd_device *d = &list->v[i];

			if (rd_device_port(d, cli->port)) {
				any = true;
			} else if (cli->devices.n) {
				char ports[256] = "";
				size_t off = 0;

				for (unsigned int j = 0; j < d->nports && off < sizeof(ports) - 8; j++)
					off += (size_t)snprintf(ports + off, sizeof(ports) - off, "%s%u",
								j ? " " : "", d->ports[j].num);
				rd_cli_error(cli, "%s: no port %u (ports: %s)", d->name, cli->port,
					     d->nports ? ports : "none");
				rd_device_list_free(list);
				return RD_EXIT_FAIL;
			}
		}
		if (!any) {
			rd_cli_error(cli, "no device has a port %u", cli->port);
			rd_device_list_free(list);
			return RD_EXIT_FAIL;
		}
	}
	return 0;
}

int rd_cli_help_version(const struct rd_cli *cli, void (*usage)(const char *prog))
{
	if (cli->want_help) {
		errno = 0;
		usage(cli->prog);
		/* a help longer than stdout's buffer failed while printing: keep why */
		if (ferror(stdout) && errno)
			(void)rd_write_error(errno);
		return RD_EXIT_OK;
	}
	if (cli->want_version) {
		rd_cli_print_version(cli);
		return RD_EXIT_OK;
	}
	return -1;
}

struct rd_out *rd_cli_out(struct rd_cli *cli)
{
	struct rd_out *o = rd_out_new(stdout, cli->json, cli->color);

	if (!o) {
		rd_cli_error(cli, "out of memory");
		return NULL;
	}
	rd_out_set_table_opts(o, &cli->table);
	return o;
}

int rd_cli_exit(struct rd_cli *cli, struct rd_out *o, int ret)
{
	int err = o ? rd_out_finish(o) : 0;

	/* A write error is reported once, at exit (close_stdout_at_exit). */
	if (err == -ENOMEM)
		rd_cli_error(cli, "out of memory");
	if (err && ret == RD_EXIT_OK)
		ret = RD_EXIT_FAIL;
	if (cli->nhc && ret == RD_EXIT_FAIL && cli->last_error && cli->last_error[0]) {
		char *msg = rd_text_escape(cli->last_error, false);

		printf("ERROR: %s: %s\n", cli->prog, msg ? msg : cli->last_error);
		free(msg);
	}
	rd_cli_flush_warnings(cli);
	rd_cli_free(cli);
	return rd_cli_stdout_status(ret);
}

int rd_cli_operands(const struct rd_cli *cli, int argc, char **argv, void (*usage)(const char *prog),
		    int max, const char *what)
{
	int ret = rd_cli_help_version(cli, usage);

	if (ret >= 0)
		return ret;
	if (max >= 0 && argc - optind > max)
		return rd_cli_usage_error(cli, "unexpected argument '%s'%s%s%s", argv[optind + max],
					  what ? " (" : "", what ? what : "", what ? ")" : "");
	return -1;
}

int rd_cli_bad_value(const struct rd_cli *cli, int opt, const char *arg, const struct option *longopts)
{
	for (const struct option *lo = longopts; lo && lo->name; lo++)
		if (lo->val == opt)
			return rd_cli_usage_error(cli, "invalid value '%s' for --%s", arg, lo->name);
	return rd_cli_usage_error(cli, "invalid value '%s'", arg);
}

/* Does option code opt take a required value (by shortopts or longopts)? */
static bool takes_value(int opt, const char *shortopts, const struct option *longopts)
{
	const char *s = opt > 0 && opt < 128 && opt != ':' ? strchr(shortopts, opt) : NULL;

	if (s)
		return s[1] == ':' && s[2] != ':';
	for (const struct option *lo = longopts; lo && lo->name; lo++)
		if (lo->val == opt)
			return lo->has_arg == required_argument;
	return false;
}

/* A value-taking option given a second time, unless it is repeatable: 0, or
 * the usage error's status. */
static int once_only(struct rd_cli *cli, int opt, char **argv, const char *shortopts,
		     const struct option *longopts)
{
	if (opt == 'd' || opt == '?' || opt == ':' || !takes_value(opt, shortopts, longopts))
		return 0;
	for (const int *r = cli->repeatable; r && *r; r++)
		if (*r == opt)
			return 0;
	for (unsigned int i = 0; i < cli->n_seen; i++) {
		if (cli->seen[i] != opt)
			continue;
		for (const struct option *lo = longopts; lo && lo->name; lo++)
			if (lo->val == opt)
				return rd_cli_usage_error(cli, "--%s given twice: it takes one value "
							  "(the second was '%s')", lo->name, optarg);
		return rd_cli_usage_error(cli, "-%c given twice: it takes one value (the second was '%s')",
					  opt, optarg ? optarg : argv[optind - 1]);
	}
	if (cli->n_seen < RD_ARRAY_SIZE(cli->seen))
		cli->seen[cli->n_seen++] = opt;
	return 0;
}

int rd_cli_getopt(struct rd_cli *cli, int argc, char **argv, const char *shortopts,
		  const struct option *longopts)
{
	int opt;

	opterr = 0;	/* errors are reported under the tool's name */
	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		int c;

		if (once_only(cli, opt, argv, shortopts, longopts))
			return RD_CLI_OPT_USAGE;
		c = rd_cli_common_opt(cli, opt, optarg);

		if (c < 0)
			return RD_CLI_OPT_USAGE;
		if (c == 0)
			return opt;
	}
	return -1;
}
