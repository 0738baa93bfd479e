// SPDX-License-Identifier: MIT
/* rdma-fabric's option rules (fabopts.h). */
#define _GNU_SOURCE
#include <unistd.h>

#include "fabopts.h"
#include "fabusage.h"

/* Options of one view or output mode that another cannot take. */
static int modes(struct rd_cli *cli, const struct rd_fabargs *a)
{
	bool view = a->links || a->sms || a->errs || a->routes;

	if ((a->paths.n || a->path_files.n) && (a->list_only || view || a->metrics || a->nhc || a->dot ||
						a->svg || a->baseline || a->so.reset || a->so.interval > 0 ||
						a->only.n || a->skip.n))
		return rd_cli_usage_error(cli, "--path prints routes: not with --list, a view, --format, "
					  "--nhc, --dot, --svg, --baseline, --reset, --interval, --only or --skip");
	if ((a->dot || a->svg) && (a->list_only || view || a->metrics))
		return rd_cli_usage_error(cli, "%s draws the checks' verdict: not with --list, a view "
					  "or --format", a->dot ? "--dot" : "--svg");
	if (a->metrics && (cli->json || a->nhc || a->verbose || a->list_only || view || a->baseline))
		return rd_cli_usage_error(cli, "--format prints metrics only: not with -j, --nhc, -v, "
					  "--list, a view or --baseline");
	if (a->metrics && a->load)
		return rd_cli_usage_error(cli, "--format: a saved fabric holds no counters");
	if (a->nhc && (cli->json || a->verbose || a->list_only || view))
		return rd_cli_usage_error(cli, "--nhc has its own output; not with -j, -v, --list or a view");
	if (a->nhc)
		return rd_cli_table_none(cli, "--nhc");
	if (a->metrics)
		return rd_cli_table_none(cli, "--format");
	return 0;
}

/* What a sweep needs and a saved fabric cannot give. */
static int sources(struct rd_cli *cli, const struct rd_fabargs *a)
{
	if (a->so.reset && (a->load || a->links || a->sms || a->list_only))
		return rd_cli_usage_error(cli, "--reset clears the counters a sweep read: not with "
					  "--load, --links, --sm or --list");
	if (a->links + a->sms + a->errs + a->routes > 1)
		return rd_cli_usage_error(cli, "--links, --sm, --errors and --routes are views: choose one");
	if (a->load && (a->save || cli->devices.n || cli->port || a->so.interval > 0))
		return rd_cli_usage_error(cli, "--load judges a saved fabric: not with --save, -d, -p "
					  "or --interval");
	if (a->load && (a->sms || a->errs))
		return rd_cli_usage_error(cli, "--load: a saved fabric holds no %s",
					  a->sms ? "SMInfo (--sm)" : "counters (--errors)");
	return 0;
}

/*
 * Every file named, before any is read or swept: no output may replace an
 * input (the map read by default too), nor the other output.
 */
static int files(struct rd_cli *cli, struct rd_fabargs *a)
{
	int ret = 0;

	if (!a->name_map && access(DEFAULT_NAME_MAP, F_OK) == 0)
		a->default_map = DEFAULT_NAME_MAP;
	if ((a->load && (ret = rd_cli_input_file(cli, "--load", a->load))) ||
	    (a->baseline && (ret = rd_cli_input_file(cli, "--baseline", a->baseline))) ||
	    (a->name_map && (ret = rd_cli_input_file(cli, "--node-name-map", a->name_map))) ||
	    (a->default_map && (ret = rd_cli_input_file(cli, "--node-name-map", a->default_map))))
		return ret;
	for (size_t i = 0; i < a->path_files.n; i++) {
		ret = rd_cli_input_file(cli, "--path-file", a->path_files.v[i]);
		if (ret)
			return ret;
	}
	if ((a->save && (ret = rd_cli_output_file(cli, "--save", a->save))) ||
	    (a->dot && (ret = rd_cli_output_file(cli, "--dot", a->dot))) ||
	    (a->svg && (ret = rd_cli_output_file(cli, "--svg", a->svg))))
		return ret;
	return 0;
}

int rd_fabopts_check(struct rd_cli *cli, struct rd_fabargs *a)
{
	int ret;

	if (cli->sysroot_dir)
		return rd_cli_usage_error(cli, "--sysroot: the fabric is read through MADs, not /sys "
					  "(--load FILE judges a saved fabric)");
	if (cli->devices.n > 1)
		return rd_cli_usage_error(cli, "-d: the MADs leave from one HCA (got %zu)", cli->devices.n);
	ret = modes(cli, a);
	if (!ret)
		ret = sources(cli, a);
	if (!ret)
		ret = files(cli, a);
	if (ret)
		return ret;
	a->co.only = &a->only;
	a->co.skip = &a->skip;
	if (!a->list_only && !a->links && !a->sms && !a->errs && !a->routes && !a->metrics && !a->paths.n &&
	    !a->path_files.n && rd_fab_selected_count(&a->co) == 0)
		return rd_cli_usage_error(cli, "no check selected: --only and --skip leave nothing to "
					  "run (see --list)");
	return 0;
}

void rd_fabargs_free(struct rd_fabargs *a)
{
	rd_strlist_free(&a->only);
	rd_strlist_free(&a->skip);
	rd_strlist_free(&a->path_files);
	rd_fabpath_free(&a->paths);
}
