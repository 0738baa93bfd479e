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
#include <stdint.h>
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

int rd_stmesh_parse_dev(const char *s, size_t len, char name[64], unsigned int *port)
{
	const char *colon = memchr(s, ':', len);
	size_t n = colon ? (size_t)(colon - s) : len;
	uint64_t v;

	*port = 0;
	if (!n || n > 63)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!rd_is_devname_char(s[i]))
			return -EINVAL;
	if (colon) {
		char num[8];
		size_t pl = len - n - 1;

		if (!pl || pl >= sizeof(num))
			return -EINVAL;
		memcpy(num, colon + 1, pl);
		num[pl] = '\0';
		if (rd_parse_u64(num, &v) || v < 1 || v > 255)
			return -EINVAL;
		*port = (unsigned int)v;
	}
	memcpy(name, s, n);
	name[n] = '\0';
	return 0;
}

/*
 * --devices: "all" (every port of every device of the list: a port that is
 * down is a rail that fails, not one left out), or DEV[:PORT],... each of
 * which must exist.  RD_EXIT_* with the error said, or -1.
 */
static int mesh_rails(struct rd_cli *cli, const char *spec, const struct rd_device_list *list,
		      struct rd_st_rail **out, size_t *nout)
{
	struct rd_st_rail *r = NULL;
	size_t n = 0, cap = 0;
	const char *s = spec;

	*out = NULL;
	*nout = 0;
	if (strcmp(spec, "all") == 0) {
		for (unsigned int i = 0; i < list->n; i++)
			cap += list->v[i].nports;
		r = calloc(cap ? cap : 1, sizeof(*r));
		if (!r)
			goto oom;
		for (unsigned int i = 0; i < list->n; i++)
			for (unsigned int j = 0; j < list->v[i].nports; j++)
				r[n++] = (struct rd_st_rail){ &list->v[i], list->v[i].ports[j].num };
		goto done;
	}
	while (*s) {
		size_t len = strcspn(s, ",");
		char name[64];
		unsigned int port, i;

		if (rd_stmesh_parse_dev(s, len, name, &port)) {
			free(r);
			return rd_cli_usage_error(cli, "--devices '%s': '%.*s' is not DEV or DEV:PORT",
						  spec, (int)len, s);
		}
		for (i = 0; i < list->n && strcmp(list->v[i].name, name) != 0; i++)
			;
		if (i == list->n) {
			size_t at = 0;
			char known[512] = "";

			for (unsigned int k = 0; k < list->n && at < sizeof(known); k++)
				at += (size_t)snprintf(known + at, sizeof(known) - at, "%s%s", k ? " " : "",
						       list->v[k].name);
			rd_cli_error(cli, "--devices: %s: no such device (known: %s)", name, known);
			free(r);
			return RD_EXIT_FAIL;
		}
		if (port && !rd_device_port(&list->v[i], port)) {
			rd_cli_error(cli, "--devices: %s has no port %u", name, port);
			free(r);
			return RD_EXIT_FAIL;
		}
		for (unsigned int j = 0; j < list->v[i].nports; j++) {
			const struct rd_st_rail one = { &list->v[i], list->v[i].ports[j].num };
			bool dup = false;

			if (port && one.port != port)
				continue;
			for (size_t k = 0; k < n; k++)
				dup = dup || (r[k].dev == one.dev && r[k].port == one.port);
			if (dup)
				continue;
			if (n == cap) {
				struct rd_st_rail *t = realloc(r, (cap = cap ? cap * 2 : 8) * sizeof(*r));

				if (!t)
					goto oom;
				r = t;
			}
			r[n++] = one;
		}
		s += len;
		if (*s == ',')
			s++;
	}
done:
	if (!n) {
		free(r);
		rd_cli_error(cli, "--devices %s: no port to test (see rdma-devinfo)", spec);
		return RD_EXIT_FAIL;
	}
	*out = r;
	*nout = n;
	return -1;
oom:
	free(r);
	rd_cli_error(cli, "out of memory");
	return RD_EXIT_FAIL;
}

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
		if (p->src_dev)
			printf("  %s/%u -> %s/%u", p->src_dev, p->src_port,
			       run->peer_dev[0] ? run->peer_dev : p->dst_dev,
			       run->peer_dev[0] ? run->peer_port : p->dst_port);
		else if (run->dev[0])
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
	if (p->src_dev && !run->dev[0]) {
		/* failed before the device was opened: the rail still says where */
		rd_out_str(pp->o, RD_JSON, "dev", NULL, p->src_dev);
		rd_out_u64(pp->o, RD_JSON, "port", NULL, p->src_port);
	}
	rd_st_json_where(pp->o, run);
	if (run->peer_dev[0] || p->dst_dev) {
		rd_out_str(pp->o, RD_JSON, "dst_dev", NULL, run->peer_dev[0] ? run->peer_dev : p->dst_dev);
		if (run->peer_dev[0] ? run->peer_port : p->dst_port)
			rd_out_u64(pp->o, RD_JSON, "dst_port", NULL,
				   run->peer_dev[0] ? run->peer_port : p->dst_port);
	}
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

/*
 * This host cannot take part (no RDMA device, a rail it lacks, cannot
 * listen): one FAIL line per peer it would have tested, stage "setup", so
 * that the fleet summary names the cause on this host's row and not only
 * "no server" on its peers'.
 */
static void cannot_take_part(struct pair_printer *pp, const struct rd_st_mesh *m, const char *why)
{
	struct rd_st_run *run = calloc(1, sizeof(*run));
	size_t self = (size_t)rd_st_mesh_self(m);

	if (!run)
		return;
	run->gid_index = -1;
	run->nstages = 1;
	rd_strlcpy(run->stages[0].name, "setup", sizeof(run->stages[0].name));
	rd_strlcpy(run->stages[0].detail, why, sizeof(run->stages[0].detail));
	run->failed = true;
	rd_strlcpy(run->fail_stage, "setup", sizeof(run->fail_stage));
	for (unsigned int r = 1; r <= m->sched->rounds; r++) {
		size_t peer = rd_st_schedule_peer(m->sched, self, r);
		struct rd_st_pair pair = { .src = m->hosts->v[self], .round = r, .run = run };

		if (peer == RD_ST_NOBODY)
			continue;
		pair.dst = m->hosts->v[peer];
		pair_done(pp, &pair);
	}
	free(run);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A mesh list names each host once (a host twice would pair it with itself). */
static int check_hosts(struct rd_cli *cli, const char *from, const struct rd_strlist *hosts)
{
	const char **v;
	int ret = -1;

	if (hosts->n == 0)
		return rd_cli_usage_error(cli, "%s: the host list is empty", from);
	v = malloc(hosts->n * sizeof(*v));
	if (!v) {
		rd_cli_error(cli, "out of memory");
		return RD_EXIT_FAIL;
	}
	memcpy(v, hosts->v, hosts->n * sizeof(*v));
	qsort(v, hosts->n, sizeof(*v), cmp_str);
	for (size_t i = 1; i < hosts->n; i++)
		if (strcmp(v[i - 1], v[i]) == 0) {
			ret = rd_cli_usage_error(cli, "%s: the host list names %s twice", from, v[i]);
			break;
		}
	free(v);
	return ret;
}

/* The participants: --hosts, --hostfile, else Slurm's node list. */
static int mesh_hosts(struct rd_cli *cli, const struct rd_st_config *cfg,
		      const struct rd_stmesh_opts *o, struct rd_strlist *hosts)
{
	struct rd_hostlist_error he = { 0 };
	const char *env = getenv("SLURM_JOB_NODELIST");
	int rc;

	if (!env || !*env)
		env = getenv("SLURM_NODELIST");
	/* Malformed or too many names (-EINVAL, -E2BIG): a usage error; only -ENOMEM is not. */
	if (o->hosts) {
		rc = rd_hostlist_expand(o->hosts, hosts, &he);
		if (rc && rc != -ENOMEM)
			return rd_cli_usage_error(cli, "--hosts '%s': column %zu: %s", o->hosts, he.column,
						  he.msg);
	} else if (o->hostfile) {
		/* The run's --timeout bounds the wait on a pipe or FIFO too. */
		rc = rd_hostfile_read(o->hostfile, cfg->timeout_ms, hosts, &he);
		if (rc && rc != -ENOMEM && he.line)
			return rd_cli_usage_error(cli, "--hostfile %s: line %zu, column %zu: %s",
						  o->hostfile, he.line, he.column, he.msg);
		if (rc && rc != -ENOMEM)
			return rd_cli_usage_error(cli, "--hostfile %s: %s", o->hostfile, he.msg);
	} else if (env && *env) {
		rc = rd_hostlist_expand(env, hosts, &he);
		if (rc && rc != -ENOMEM)
			return rd_cli_usage_error(cli, "SLURM_JOB_NODELIST '%s': column %zu: %s", env,
						  he.column, he.msg);
	} else {
		return rd_cli_usage_error(cli, "--mesh needs the hosts: --hosts LIST, --hostfile FILE, "
					  "or a Slurm job (SLURM_JOB_NODELIST)");
	}
	if (rc) {
		rd_cli_error(cli, "out of memory");
		return RD_EXIT_FAIL;
	}
	return check_hosts(cli, o->hosts ? "--hosts" : o->hostfile ? "--hostfile" : "SLURM_JOB_NODELIST",
			   hosts);
}

int rd_stmesh_main(struct rd_cli *cli, const struct rd_st_config *cfg,
		   const struct rd_stmesh_opts *o, struct rd_out **out)
{
	struct rd_strlist hosts = { 0 };
	struct rd_device_list list = { 0 };
	struct pair_printer pp = { .color = cli->color };
	struct rd_st_schedule sched = { 0 };
	struct rd_st_mesh m = { .hosts = &hosts, .sched = &sched, .wait_ms = o->wait_ms };
	const char *local = getenv("SLURM_LOCALID"), *node = getenv("SLURMD_NODENAME");
	char self[256], why[320] = "";
	struct rd_st_rail *rails = NULL;
	unsigned int failed = 0;
	int ret;

	ret = mesh_hosts(cli, cfg, o, &hosts);
	if (ret >= 0)
		goto out;
	/* srun with several tasks on a node: the node's first task stands for it */
	if (local) {
		uint64_t id;

		if (rd_parse_u64(local, &id) || id > 65535) {
			ret = rd_cli_usage_error(cli, "SLURM_LOCALID '%.32s' is not a task number "
						 "(0 to 65535)", local);
			goto out;
		}
		if (id != 0) {
			ret = RD_EXIT_OK;
			goto out;
		}
	}
	if (!o->self && node && strlen(node) > RD_HOSTNAME_MAX) {
		/* Cut, it could be another host's name: refused, as --self is. */
		ret = rd_cli_usage_error(cli, "SLURMD_NODENAME: a host name of %zu bytes (at most %d; "
					 "--self NAME names this host)", strlen(node), RD_HOSTNAME_MAX);
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
	if (rd_st_schedule_init(&sched, &o->plan, hosts.n)) {
		rd_cli_error(cli, "out of memory");
		ret = RD_EXIT_FAIL;
		goto out;
	}
	if (cli->json) {
		pp.o = rd_out_new(stdout, true, false);
		if (!pp.o) {
			ret = RD_EXIT_FAIL;
			goto out;
		}
		rd_out_set_stream(pp.o, true);
	}
	/* From here a failure is also this host's pairs' (stage setup), with the error's words. */
	cli->last_error = why;
	cli->last_error_len = sizeof(why);
	ret = rd_cli_scan_devices(cli, &list);
	if (!ret && o->devices) {
		ret = mesh_rails(cli, o->devices, &list, &rails, &m.nrails);
		if (ret < 0)
			ret = 0;
		m.rails = rails;
		m.cross = o->cross;
	}
	if (ret) {
		cannot_take_part(&pp, &m, why[0] ? why : "cannot take part");
		goto out;
	}
	ret = rd_st_mesh_run(cfg, &cli->sr, &list, &m, NULL, pair_done, &pp, &failed, why, sizeof(why));
	if (ret) {
		rd_cli_error(cli, "%s", why);
		cannot_take_part(&pp, &m, why);
		ret = RD_EXIT_FAIL;
		goto out;
	}
	ret = failed || (cfg->stop && *cfg->stop) ? RD_EXIT_FAIL : RD_EXIT_OK;
out:
	cli->last_error = NULL;
	free(rails);
	rd_st_schedule_free(&sched);
	rd_device_list_free(&list);
	rd_strlist_free(&hosts);
	*out = pp.o;
	return ret;
}
