// SPDX-License-Identifier: MIT
/* rdma-fabric --dot and --svg: the pictures into their files (fabwrite.h). */
#define _GNU_SOURCE
#include <stdio.h>

#include "base/base.h"
#include "fabdot.h"
#include "fabsvg.h"
#include "fabwrite.h"

struct pic_arg {
	const struct rd_fab *fab;
	const struct rd_fab_report *rep;
};

static int write_dot(FILE *fp, void *arg)
{
	const struct pic_arg *a = arg;

	return rd_fabdot_write(fp, a->fab, a->rep);
}

static int write_svg(FILE *fp, void *arg)
{
	const struct pic_arg *a = arg;

	return rd_fabsvg_write(fp, a->fab, a->rep);
}

static int one(const struct rd_cli *cli, const char *opt, const char *path, int (*fn)(FILE *, void *),
	       struct pic_arg *a)
{
	struct rd_outfile of;
	char why[512] = "";
	int ret = rd_outfile_open(&of, path, why, sizeof(why));

	if (!ret)
		ret = rd_outfile_replace(&of, fn, a, why, sizeof(why));
	rd_outfile_close(&of);
	if (ret) {
		rd_cli_error(cli, "%s %s: %s", opt, path, why);
		return -1;
	}
	return 0;
}

int rd_fabwrite_pictures(const struct rd_cli *cli, const struct rd_fab *fab, const struct rd_fab_report *rep,
			 const char *dot, const char *svg)
{
	struct pic_arg a = { fab, rep };

	if (dot && one(cli, "--dot", dot, write_dot, &a))
		return -1;
	if (svg && one(cli, "--svg", svg, write_svg, &a))
		return -1;
	return 0;
}
