// SPDX-License-Identifier: MIT
/* The files of one run: its inputs by device and inode, its outputs (runfiles.h). */
#define _GNU_SOURCE
#include "runfiles.h"
#include "strmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How far up from an output's directory a --sysroot tree is looked for. */
#define TREE_MAX_DEPTH 4096

struct run_id {
	uint64_t dev, ino;
};

struct run_tree {
	const char *what;
	struct run_id id;
};

struct run_output {
	const char *what;
	struct run_id dir;
	const char *name;
	bool exists;
	struct run_id file;
};

static struct {
	struct rd_strmap inputs;	/* (dev, ino) -> index into names */
	const char **names;
	size_t nnames, cap;
	struct run_tree *trees;
	size_t ntrees;
	struct run_output *outs;
	size_t nouts;
	struct rd_strpool pool;		/* every name above */
} run;

static struct run_id id_of(const struct stat *st)
{
	struct run_id id = { (uint64_t)st->st_dev, (uint64_t)st->st_ino };

	return id;
}

static bool same_id(struct run_id a, struct run_id b)
{
	return a.dev == b.dev && a.ino == b.ino;
}

int rd_run_input_stat(const char *what, const struct stat *st)
{
	struct run_id id;
	size_t at = run.nnames;
	int rc;

	if (!S_ISREG(st->st_mode))
		return 0;	/* only a regular file is ever replaced (outfile.h) */
	id = id_of(st);
	if (run.nnames == run.cap) {
		size_t cap = run.cap ? run.cap * 2 : 16;
		const char **n = realloc(run.names, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		run.names = n;
		run.cap = cap;
	}
	rc = rd_strmap_get_or_add(&run.inputs, &id, sizeof(id), &at);
	if (rc < 0)
		return rc;
	if (rc == 1)
		return 0;	/* known: the first name stays */
	run.names[at] = rd_strpool_sdup(&run.pool, what);
	if (!run.names[at]) {
		run.names[at] = "an input";	/* in the table all the same: still refused */
		run.nnames++;
		return -ENOMEM;
	}
	run.nnames++;
	return 0;
}

int rd_run_input(const char *what, const char *path)
{
	struct stat st;

	if (strcmp(path, "-") == 0 ? fstat(STDIN_FILENO, &st) : stat(path, &st))
		return 0;
	return rd_run_input_stat(what, &st);
}

const char *rd_run_input_of(const struct stat *st)
{
	struct run_id id = id_of(st);
	size_t at;

	if (!S_ISREG(st->st_mode) || !rd_strmap_get(&run.inputs, &id, sizeof(id), &at))
		return NULL;
	return run.names[at];
}

int rd_run_input_tree(const char *what, const char *dir)
{
	struct run_tree *t;
	struct stat st;

	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return 0;
	t = realloc(run.trees, (run.ntrees + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	run.trees = t;
	t[run.ntrees].id = id_of(&st);
	t[run.ntrees].what = rd_strpool_sdup(&run.pool, what);
	if (!t[run.ntrees].what)
		return -ENOMEM;
	run.ntrees++;
	return 0;
}

static const char *tree_is(struct run_id id)
{
	for (size_t i = 0; i < run.ntrees; i++)
		if (same_id(run.trees[i].id, id))
			return run.trees[i].what;
	return NULL;
}

const char *rd_run_tree_of(int dirfd, const struct stat *dirst)
{
	struct run_id id = id_of(dirst);
	const char *what;
	int fd = -1;

	if (!run.ntrees)
		return NULL;
	what = tree_is(id);
	/* Up through "..": the directories themselves, whatever names led here. */
	for (int depth = 0; !what && depth < TREE_MAX_DEPTH; depth++) {
		int up = openat(fd < 0 ? dirfd : fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		struct stat st;
		struct run_id upid;

		if (up < 0)
			break;
		if (fd >= 0)
			close(fd);
		fd = up;
		if (fstat(fd, &st))
			break;
		upid = id_of(&st);
		if (same_id(upid, id))
			break;	/* the root is its own parent */
		id = upid;
		what = tree_is(id);
	}
	if (fd >= 0)
		close(fd);
	return what;
}

int rd_run_output(const char *what, const struct stat *dirst, const char *name,
		  const struct stat *st, const char **clash)
{
	struct run_output o = { .dir = id_of(dirst), .exists = st != NULL };
	struct run_output *v;

	*clash = NULL;
	if (st)
		o.file = id_of(st);
	for (size_t i = 0; i < run.nouts; i++) {
		const struct run_output *p = &run.outs[i];

		if ((o.exists && p->exists && same_id(o.file, p->file)) ||
		    (same_id(o.dir, p->dir) && strcmp(name, p->name) == 0)) {
			*clash = p->what;
			return 0;
		}
	}
	o.what = rd_strpool_sdup(&run.pool, what);
	o.name = rd_strpool_sdup(&run.pool, name);
	v = realloc(run.outs, (run.nouts + 1) * sizeof(*v));
	if (!o.what || !o.name || !v) {
		if (v)
			run.outs = v;
		return -ENOMEM;
	}
	run.outs = v;
	run.outs[run.nouts++] = o;
	return 0;
}

void rd_run_reset(void)
{
	rd_strmap_free(&run.inputs);
	free(run.names);
	free(run.trees);
	free(run.outs);
	rd_strpool_free(&run.pool);
	memset(&run, 0, sizeof(run));
}
