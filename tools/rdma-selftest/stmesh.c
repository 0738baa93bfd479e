// SPDX-License-Identifier: MIT
/*
 * rdma-selftest --mesh: the host list from --hosts, --hostfile or Slurm's
 * environment, this host's name, and one line (or one JSON line) per pair as
 * it ends.  The engine (lib/selftest/mesh.h) runs the rounds.
 */
#define _GNU_SOURCE
#include "stmesh.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "output/output.h"

struct pair_printer {
	struct rd_out *o;	/* JSON lines; NULL in text */
	bool color;
};

static const struct rd_st_stage *failed_stage(const struct rd_st_run *run)
{
	for (unsigned int i = 0; i < run->nstages; i++)
		if (!run->stages[i].ok)
			return &run->stages[i];
	return NULL;
}

static const struct rd_st_stage *warn_stage(const struct rd_st_run *run)
{
	for (unsigned int i = 0; i < run->nstages; i++)
		if (run->stages[i].ok && run->stages[i].warn)
			return &run->stages[i];
	return NULL;
}

static void pair_done(void *ctx, const struct rd_st_pair *p)
{
	const struct pair_printer *pp = ctx;
	const struct rd_st_run *run = p->run;
	const struct rd_st_stage *bad = failed_stage(run), *warn = warn_stage(run);

	if (!pp->o) {
		printf("%s -> %s", p->src, p->dst);
		if (run->dev[0])
			printf("  %s/%u", run->dev, run->port);
		if (run->ok) {
			printf("  %s", pp->color ? "\033[32mPASS\033[0m" : "PASS");
			if (run->nlat)
				printf("  latency %.1f us", run->lat[0].median);
			if (run->nbw)
				printf("  bandwidth %.3f Gb/s", run->bw[0].gbps);
			if (warn)
				printf("  %s %s: %s", pp->color ? "\033[33mWARN\033[0m" : "WARN",
				       warn->name, warn->detail);
		} else {
			printf("  %s at %s: %s", pp->color ? "\033[31mFAIL\033[0m" : "FAIL",
			       run->failed ? run->fail_stage : "?", bad ? bad->detail : "no stage ran");
		}
		if (p->attempts > 1)
			printf("  (%u attempts, %.1f s waiting)", p->attempts, p->wait_ms / 1000);
		putchar('\n');
		fflush(stdout);
		return;
	}
	rd_out_section_begin(pp->o, NULL, NULL);
	rd_out_str(pp->o, RD_JSON, "mode", NULL, "mesh");
	rd_out_str(pp->o, RD_JSON, "host", NULL, p->src);	/* names the line's host without a prefix */
	rd_out_str(pp->o, RD_JSON, "src", NULL, p->src);
	rd_out_str(pp->o, RD_JSON, "dst", NULL, p->dst);
	rd_out_u64(pp->o, RD_JSON, "round", NULL, p->round);
	rd_out_u64(pp->o, RD_JSON, "attempts", NULL, p->attempts);
	rd_out_double(pp->o, RD_JSON, "wait_ms", NULL, round(p->wait_ms * 10) / 10, NULL);
	rd_st_json_where(pp->o, run);
	rd_out_str(pp->o, RD_JSON, "result", NULL, run->ok ? "pass" : "fail");
	if (run->failed) {
		rd_out_str(pp->o, RD_JSON, "failed_stage", NULL, run->fail_stage);
		rd_out_str(pp->o, RD_JSON, "diagnosis", NULL, bad ? bad->detail : "");
	}
	if (warn)
		rd_out_str(pp->o, RD_JSON, "warning", NULL, warn->detail);
	if (run->nlat)
		rd_out_double(pp->o, RD_JSON, "latency_us", NULL, round(run->lat[0].median * 100) / 100, NULL);
	if (run->nbw)
		rd_out_double(pp->o, RD_JSON, "gbps", NULL, round(run->bw[0].gbps * 10000) / 10000, NULL);
	rd_out_section_end(pp->o);
}

/* The participants: --hosts, --hostfile, else Slurm's node list. */
static int mesh_hosts(struct rd_cli *cli, const struct rd_stmesh_opts *o, struct rd_strlist *hosts)
{
	struct rd_hostlist_error he = { 0 };
	const char *env = getenv("SLURM_JOB_NODELIST");
	int rc;

	if (!env || !*env)
		env = getenv("SLURM_NODELIST");
	if (o->hosts) {
		rc = rd_hostlist_expand(o->hosts, hosts, &he);
		if (rc == -EINVAL)
			return rd_cli_usage_error(cli, "--hosts '%s': column %zu: %s", o->hosts, he.column,
						  he.msg);
	} else if (o->hostfile) {
		rc = rd_hostfile_read(o->hostfile, hosts, &he);
		if (rc == -EINVAL) {
			rd_cli_error(cli, "%s: line %zu, column %zu: %s", o->hostfile, he.line, he.column,
				     he.msg);
			return RD_EXIT_FAIL;
		}
		if (rc && rc != -ENOMEM) {
			rd_cli_error(cli, "%s: cannot read the hostfile: %s", o->hostfile, he.msg);
			return RD_EXIT_FAIL;
		}
	} else if (env && *env) {
		rc = rd_hostlist_expand(env, hosts, &he);
		if (rc == -EINVAL) {
			rd_cli_error(cli, "SLURM_JOB_NODELIST '%s': column %zu: %s", env, he.column, he.msg);
			return RD_EXIT_FAIL;
		}
	} else {
		return rd_cli_usage_error(cli, "--mesh needs the hosts: --hosts LIST, --hostfile FILE, "
					  "or a Slurm job (SLURM_JOB_NODELIST)");
	}
	if (rc) {
		rd_cli_error(cli, "out of memory");
		return RD_EXIT_FAIL;
	}
	return -1;
}

int rd_stmesh_main(struct rd_cli *cli, const struct rd_st_config *cfg,
		   const struct rd_stmesh_opts *o, struct rd_out **out)
{
	struct rd_strlist hosts = { 0 };
	struct rd_device_list list = { 0 };
	struct pair_printer pp = { .color = cli->color };
	struct rd_st_mesh m = { .hosts = &hosts, .ring = o->ring, .wait_ms = o->wait_ms };
	const char *local = getenv("SLURM_LOCALID"), *node = getenv("SLURMD_NODENAME");
	char self[256], why[320] = "";
	unsigned int failed = 0;
	int ret;

	ret = mesh_hosts(cli, o, &hosts);
	if (ret >= 0)
		goto out;
	/* srun with several tasks on a node: the node's first task stands for it */
	if (local && *local && strcmp(local, "0") != 0) {
		ret = RD_EXIT_OK;
		goto out;
	}
	if (o->self)
		rd_strlcpy(self, o->self, sizeof(self));
	else if (node && *node)
		rd_strlcpy(self, node, sizeof(self));
	else if (gethostname(self, sizeof(self)))
		rd_strlcpy(self, "localhost", sizeof(self));
	self[sizeof(self) - 1] = '\0';
	m.self = self;
	if (rd_st_mesh_self(&m) < 0) {
		char *hl = rd_hostlist_compress(&hosts);

		rd_cli_error(cli, "this host (%s) is not in the host list %s (--self NAME names it)", self,
			     hl ? hl : "");
		free(hl);
		ret = RD_EXIT_USAGE;
		goto out;
	}
	if (hosts.n < 2) {
		ret = rd_cli_usage_error(cli, "a mesh needs at least two hosts (the list has %zu)", hosts.n);
		goto out;
	}
	ret = rd_cli_scan_devices(cli, &list);
	if (ret)
		goto out;
	if (cli->json) {
		pp.o = rd_out_new(stdout, true, false);
		if (!pp.o) {
			ret = RD_EXIT_FAIL;
			goto out;
		}
		rd_out_set_stream(pp.o, true);
	}
	ret = rd_st_mesh_run(cfg, &cli->sr, &list, &m, NULL, pair_done, &pp, &failed, why, sizeof(why));
	if (ret) {
		rd_cli_error(cli, "%s", why);
		ret = RD_EXIT_FAIL;
		goto out;
	}
	ret = failed || (cfg->stop && *cfg->stop) ? RD_EXIT_FAIL : RD_EXIT_OK;
out:
	rd_device_list_free(&list);
	rd_strlist_free(&hosts);
	*out = pp.o;
	return ret;
}
