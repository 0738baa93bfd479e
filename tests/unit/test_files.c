// SPDX-License-Identifier: MIT
/* Files a tool reads and writes: rd_infile's limits and deadline, rd_outfile's refusals. */
#include "unit.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "base/base.h"

static const struct rd_infile_limits lim = {
	.max_bytes = 4096,
	.max_line = 16,
	.max_lines = 5,
	.timeout_ms = 200,
};

static char *path_of(const char *rel)
{
	static char p[512];

	snprintf(p, sizeof(p), "%s/%s", scratch, rel);
	return p;
}

/* Read rel's lines, joined with '|'; returns the last rd_infile result. */
static int read_all(const char *path, char *got, size_t len, char *why, size_t why_len)
{
	struct rd_infile f;
	char *line;
	size_t n;
	int ret;

	got[0] = why[0] = '\0';
	ret = rd_infile_open(&f, path, &lim, why, why_len);
	while (ret == 0 && (ret = rd_infile_line(&f, &line, &n, why, why_len)) == 1) {
		assert_int_equal(strlen(line), n);
		if (*got)
			strncat(got, "|", len - strlen(got) - 1);
		strncat(got, line, len - strlen(got) - 1);
		ret = 0;
	}
	rd_infile_close(&f);
	return ret;
}

static void test_infile_lines(void **state)
{
	char got[256], why[128];

	(void)state;
	scratch_make();
	put("a", "one\n\ntwo\r\nthree");
	assert_int_equal(read_all(path_of("a"), got, sizeof(got), why, sizeof(why)), 0);
	assert_string_equal(got, "one||two\r|three");
	put("empty", "");
	assert_int_equal(read_all(path_of("empty"), got, sizeof(got), why, sizeof(why)), 0);
	assert_string_equal(got, "");
	/* exactly the limits: 5 lines of 16 bytes */
	put("fit", "0123456789abcdef\n1\n2\n3\n4\n");
	assert_int_equal(read_all(path_of("fit"), got, sizeof(got), why, sizeof(why)), 0);
	put("long", "ok\n0123456789abcdefX\n");
	assert_int_equal(read_all(path_of("long"), got, sizeof(got), why, sizeof(why)), -EFBIG);
	assert_string_equal(why, "line 2: longer than the limit of 16 bytes");
	put("many", "1\n2\n3\n4\n5\n6\n");
	assert_int_equal(read_all(path_of("many"), got, sizeof(got), why, sizeof(why)), -EFBIG);
	assert_string_equal(why, "more than 5 lines: the limit");
	assert_string_equal(got, "1|2|3|4|5");
	scratch_remove();
}

static void test_infile_refusals(void **state)
{
	char got[256], why[128], big[5000];
	int fd;

	(void)state;
	scratch_make();
	/* a NUL byte: binary, named by its line, before the line is read whole */
	fd = open(path_of("bin"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(write(fd, "a\nb\nc\0d\n", 8), 8);
	close(fd);
	assert_int_equal(read_all(path_of("bin"), got, sizeof(got), why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "line 3: binary data (a NUL byte)");
	/* larger than max_bytes: refused at open by its size */
	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = '\0';
	put("big", big);
	assert_int_equal(read_all(path_of("big"), got, sizeof(got), why, sizeof(why)), -EFBIG);
	assert_string_equal(why, "4999 bytes: larger than the limit of 4 KiB");
	assert_int_equal(read_all(scratch, got, sizeof(got), why, sizeof(why)), -EISDIR);
	assert_string_equal(why, "Is a directory");
	assert_int_equal(read_all("/dev/zero", got, sizeof(got), why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "a character device, not a file");
	assert_int_equal(read_all(path_of("none"), got, sizeof(got), why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "No such file or directory");
	scratch_remove();
}

static void test_infile_fifo(void **state)
{
	char got[256], why[128];
	struct timespec a, b;
	pid_t pid;
	int st;

	(void)state;
	scratch_make();
	/* no writer: the idle deadline, not a hang */
	assert_int_equal(mkfifo(path_of("fifo"), 0600), 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(read_all(path_of("fifo"), got, sizeof(got), why, sizeof(why)), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_string_equal(why, "no data for 0.2 s (a pipe or FIFO whose writer is silent or absent)");
	assert_true((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 >= 190);
	/* a writer that writes and closes: its lines, then the end */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(path_of("fifo"), O_WRONLY);

		_exit(fd < 0 || write(fd, "x\ny\n", 4) != 4);
	}
	assert_int_equal(read_all(path_of("fifo"), got, sizeof(got), why, sizeof(why)), 0);
	assert_string_equal(got, "x|y");
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(st, 0);
	/* a NUL byte from a pipe: the whole lines before it first, then the error;
	 * a byte-order mark is not part of the first line */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(path_of("fifo"), O_WRONLY);

		_exit(fd < 0 || write(fd, "\xef\xbb\xbfx\ny\nz\0w\n", 11) != 11);
	}
	assert_int_equal(read_all(path_of("fifo"), got, sizeof(got), why, sizeof(why)), -EINVAL);
	assert_string_equal(got, "x|y");
	assert_string_equal(why, "line 3: binary data (a NUL byte)");
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(st, 0);
	/* a pipe has no size to check at open: its bytes are counted as they come */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		static char big[4500];
		int fd = open(path_of("fifo"), O_WRONLY);

		for (size_t i = 0; i < sizeof(big); i++)
			big[i] = i % 2 ? '\n' : 'x';
		_exit(fd < 0 || write(fd, big, sizeof(big)) != (ssize_t)sizeof(big));
	}
	{
		/* lines and their number within their limits: only the bytes are not */
		static const struct rd_infile_limits bytes_only = {
			.max_bytes = 4096, .max_line = 8192, .max_lines = 100000, .timeout_ms = 2000,
		};
		struct rd_infile f;
		char *line;
		size_t n;
		int ret = rd_infile_open(&f, path_of("fifo"), &bytes_only, why, sizeof(why));

		while (ret == 0 && (ret = rd_infile_line(&f, &line, &n, why, sizeof(why))) == 1)
			ret = 0;
		rd_infile_close(&f);
		assert_int_equal(ret, -EFBIG);
		assert_string_equal(why, "larger than the limit of 4 KiB");
	}
	(void)waitpid(pid, &st, 0);
	scratch_remove();
}

static int write_hello(FILE *fp, void *arg)
{
	(void)arg;
	return fputs("hello\n", fp) < 0 ? -EIO : 0;
}

static int write_fails(FILE *fp, void *arg)
{
	(void)fp;
	(void)arg;
	return -ENOSPC;
}

static void expect_refused(const char *path, int err, const char *msg)
{
	struct rd_outfile of;
	char why[160];

	assert_int_equal(rd_outfile_open(&of, path, why, sizeof(why)), err);
	assert_string_equal(why, msg);
	assert_int_equal(of.dirfd, -1);
}

static void test_outfile(void **state)
{
	struct rd_outfile of;
	char why[160], buf[32], cmd[600];
	struct stat st;
	FILE *f;

	(void)state;
	scratch_make();
	put("real", "keep\n");
	assert_int_equal(symlink("real", path_of("link")), 0);
	assert_int_equal(mkfifo(path_of("fifo"), 0600), 0);
	assert_int_equal(mkdir(path_of("dir"), 0700), 0);
	expect_refused(path_of("link"), -EEXIST,
		       "exists and is a symbolic link: refusing to replace it (name a regular file)");
	expect_refused(path_of("fifo"), -EEXIST,
		       "exists and is a FIFO: refusing to replace it (name a regular file)");
	expect_refused("/dev/null", -EEXIST,
		       "exists and is a character device: refusing to replace it (name a regular file)");
	expect_refused(path_of("dir"), -EISDIR, "Is a directory");
	expect_refused(path_of("dir/"), -EISDIR, "Is a directory");
	expect_refused(path_of("none/x"), -ENOENT, "its directory: No such file or directory");
	expect_refused("", -ENOENT, "No such file or directory");
	/* nothing refused was touched */
	assert_int_equal(lstat(path_of("link"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(lstat(path_of("fifo"), &st), 0);
	assert_true(S_ISFIFO(st.st_mode));

	/* a new file, then replaced; a failed write leaves the old one and no temporary */
	assert_int_equal(rd_outfile_open(&of, path_of("out.prom"), why, sizeof(why)), 0);
	assert_int_equal(rd_outfile_replace(&of, write_hello, NULL, why, sizeof(why)), 0);
	assert_int_equal(rd_outfile_replace(&of, write_hello, NULL, why, sizeof(why)), 0);
	assert_int_equal(rd_outfile_replace(&of, write_fails, NULL, why, sizeof(why)), -ENOSPC);
	f = fopen(path_of("out.prom"), "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "hello\n");
	assert_string_equal(why, "No space left on device");
	/* the target turned into a symlink between two writes: refused, left alone */
	snprintf(cmd, sizeof(cmd), "%s", path_of("link"));
	assert_int_equal(rename(cmd, path_of("out.prom")), 0);
	assert_int_equal(rd_outfile_replace(&of, write_hello, NULL, why, sizeof(why)), -EEXIST);
	rd_outfile_close(&of);
	f = fopen(path_of("real"), "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "keep\n");
	/* no temporary ".out.prom.XXXXXX" left behind */
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s' | grep '^\\.')\"", scratch);
	assert_int_equal(system(cmd), 0);
	scratch_remove();
}

/* Standard input from path, for the "-" cases. */
static void redirect_stdin(const char *path)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	close(fd);
}

/* Open and read path through rd_infile: one of the run's inputs after. */
static void read_input(const char *path)
{
	char got[256], why[128];

	assert_int_equal(read_all(path, got, sizeof(got), why, sizeof(why)), 0);
}

/* The run's table: inputs by device and inode, whatever the name. */
static void test_run_inputs(void **state)
{
	char in[512], sym[600], hard[512];
	struct stat st;
	int fd;

	(void)state;
	scratch_make();
	rd_run_reset();
	put("in", "x\n");
	snprintf(in, sizeof(in), "%s/in", scratch);
	snprintf(sym, sizeof(sym), "%s/link", scratch);
	snprintf(hard, sizeof(hard), "%s/hard", scratch);
	assert_int_equal(symlink("in", sym), 0);
	assert_int_equal(link(in, hard), 0);
	assert_int_equal(stat(hard, &st), 0);
	assert_null(rd_run_input_of(&st));
	/* named through the symlink, found through the hard link; the first name stays */
	assert_int_equal(rd_run_input("--hostfile link", sym), 0);
	assert_int_equal(rd_run_input("input in", in), 0);
	assert_string_equal(rd_run_input_of(&st), "--hostfile link");
	/* what cannot be examined, and what is no regular file, adds nothing */
	assert_int_equal(rd_run_input("--load none", path_of("none")), 0);
	assert_int_equal(mkfifo(path_of("fifo"), 0600), 0);
	assert_int_equal(rd_run_input("--load fifo", path_of("fifo")), 0);
	assert_int_equal(stat(path_of("fifo"), &st), 0);
	assert_null(rd_run_input_of(&st));
	assert_int_equal(stat(scratch, &st), 0);
	assert_null(rd_run_input_of(&st));
	/* "-": standard input, when it is a regular file */
	put("stdin", "y\n");
	fd = dup(STDIN_FILENO);
	assert_true(fd >= 0);
	redirect_stdin(path_of("stdin"));
	assert_int_equal(rd_run_input("stdin", "-"), 0);
	assert_int_equal(stat(path_of("stdin"), &st), 0);
	assert_string_equal(rd_run_input_of(&st), "stdin");
	assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	close(fd);
	/* rd_infile_open adds what it opens, by its path (stdin as "stdin") */
	put("read", "z\n");
	snprintf(in, sizeof(in), "%s/read", scratch);
	read_input(in);
	assert_int_equal(stat(in, &st), 0);
	snprintf(sym, sizeof(sym), "input %s", in);
	assert_string_equal(rd_run_input_of(&st), sym);
	rd_run_reset();
	assert_int_equal(stat(hard, &st), 0);
	assert_null(rd_run_input_of(&st));
	scratch_remove();
}

/* rd_outfile_check into why; path is scratch/rel. */
static int check_out(const char *what, const char *rel, char *why, size_t len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", scratch, rel);
	return rd_outfile_check(what, path, why, len);
}

static void expect_clash(const char *what, const char *rel, const char *msg)
{
	char why[256] = "";

	assert_int_equal(check_out(what, rel, why, sizeof(why)), -EEXIST);
	assert_string_equal(why, msg);
}

/* No output replaces an input of the run, by any name, nor another output. */
static void test_outfile_run(void **state)
{
	char in[512], path[600], why[256], buf[32], cmd[700];
	struct rd_outfile of;
	FILE *f;

	(void)state;
	scratch_make();
	rd_run_reset();
	put("in", "keep\n");
	snprintf(in, sizeof(in), "%s/in", scratch);
	assert_int_equal(symlink("in", path_of("link")), 0);
	snprintf(path, sizeof(path), "%s/hard", scratch);
	assert_int_equal(link(in, path), 0);
	assert_int_equal(symlink(".", path_of("dot")), 0);
	mkdirs("sub");
	assert_int_equal(rd_run_input("input in", in), 0);

	/* early: every name of the input, through a symlink, a hard link, a linked directory */
	expect_clash("--svg in", "in", "is the same file as input in; nothing written");
	expect_clash("--svg link", "link", "is the same file as input in; nothing written");
	expect_clash("--svg hard", "hard", "is the same file as input in; nothing written");
	expect_clash("--svg dot/in", "dot/in", "is the same file as input in; nothing written");
	expect_clash("--svg sub/../in", "sub/../in", "is the same file as input in; nothing written");
	assert_int_equal(rd_outfile_check("--svg -", "-", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "names standard output, not a file (./- is a file called \"-\"); "
			    "nothing written");
	assert_int_equal(rd_outfile_check("--svg", "", why, sizeof(why)), -ENOENT);
	/* a directory that is not there: for rd_outfile_open to say */
	assert_int_equal(check_out("--svg none/x", "none/x", why, sizeof(why)), 0);
	/* outputs: the same file twice is refused, by name or by link */
	assert_int_equal(check_out("--save out", "out", why, sizeof(why)), 0);
	expect_clash("--dot dot/out", "dot/out", "is the same file as --save out; nothing written");
	put("old", "x\n");
	snprintf(path, sizeof(path), "%s/old", scratch);
	assert_int_equal(link(path, path_of("old2")), 0);
	assert_int_equal(check_out("--save old", "old", why, sizeof(why)), 0);
	expect_clash("--dot old2", "old2", "is the same file as --save old; nothing written");
	assert_int_equal(check_out("--dot other", "other", why, sizeof(why)), 0);

	/* late: rd_outfile_open and each replacement refuse the inputs read so far */
	expect_refused(in, -EEXIST, "the same file as input in; nothing written");
	snprintf(path, sizeof(path), "%s/hard", scratch);
	expect_refused(path, -EEXIST, "the same file as input in; nothing written");
	expect_refused("-", -EINVAL, "standard output, not a file (./- is a file called \"-\"); "
		       "nothing written");
	put("later", "keep\n");
	snprintf(path, sizeof(path), "%s/later", scratch);
	assert_int_equal(rd_outfile_open(&of, path, why, sizeof(why)), 0);
	read_input(path);
	assert_int_equal(rd_outfile_replace(&of, write_hello, NULL, why, sizeof(why)), -EEXIST);
	snprintf(cmd, sizeof(cmd), "the same file as input %s; nothing written", path);
	assert_string_equal(why, cmd);
	rd_outfile_close(&of);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "keep\n");

	/* a tree read whole (--sysroot): nothing under it, however reached */
	mkdirs("tree/sys/class");
	snprintf(path, sizeof(path), "%s/tree", scratch);
	assert_int_equal(rd_run_input_tree("--sysroot tree", path), 0);
	expect_clash("--textfile", "tree/sys/class/x.prom",
		     "is inside --sysroot tree, which this run reads; nothing written");
	expect_clash("--textfile", "dot/tree/x.prom",
		     "is inside --sysroot tree, which this run reads; nothing written");
	snprintf(path, sizeof(path), "%s/tree/sys/x.prom", scratch);
	expect_refused(path, -EEXIST, "inside --sysroot tree, which this run reads; nothing written");
	assert_int_equal(check_out("--textfile", "x.prom", why, sizeof(why)), 0);

	/* a new run forgets them */
	rd_run_reset();
	assert_int_equal(check_out("--svg in", "in", why, sizeof(why)), 0);
	assert_int_equal(check_out("--svg t", "tree/x", why, sizeof(why)), 0);
	rd_run_reset();
	scratch_remove();
}

/* A target named at the longest a name may be still gets its temporary file. */
static void test_outfile_long_name(void **state)
{
	char name[NAME_MAX + 1], path[NAME_MAX + 300], why[160], cmd[NAME_MAX + 400];
	struct rd_outfile of;

	(void)state;
	scratch_make();
	memset(name, 'n', NAME_MAX);
	name[NAME_MAX] = '\0';
	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	assert_int_equal(rd_outfile_open(&of, path, why, sizeof(why)), 0);
	assert_int_equal(rd_outfile_replace(&of, write_hello, NULL, why, sizeof(why)), 0);
	assert_int_equal(rd_outfile_replace(&of, write_hello, NULL, why, sizeof(why)), 0);
	rd_outfile_close(&of);
	assert_int_equal(access(path, R_OK), 0);
	/* the target alone, no temporary left */
	snprintf(cmd, sizeof(cmd), "test \"$(ls -A '%s')\" = '%s'", scratch, name);
	assert_int_equal(system(cmd), 0);
	rd_run_reset();
	scratch_remove();
}

/*
 * Each test is a run of its own: the files an earlier one read are gone, and
 * a new file may get the inode one of them had.
 */
static int new_run(void **state)
{
	(void)state;
	rd_run_reset();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_infile_lines, new_run),
		cmocka_unit_test_setup(test_infile_refusals, new_run),
		cmocka_unit_test_setup(test_infile_fifo, new_run),
		cmocka_unit_test_setup(test_outfile, new_run),
		cmocka_unit_test_setup(test_run_inputs, new_run),
		cmocka_unit_test_setup(test_outfile_run, new_run),
		cmocka_unit_test_setup(test_outfile_long_name, new_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
