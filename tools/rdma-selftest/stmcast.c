// SPDX-License-Identifier: MIT
/*
 * rdma-selftest --mcast: the sender prints its stages and verdict; a
 * receiver --server prints one line (or JSON line) per sender's run as it
 * ends, after a joined line; a receiver --once prints its stages, its tally
 * and its verdict (or one JSON document).  The engine is lib/selftest/mcast.c.
 */
#define _GNU_SOURCE
#include "stmcast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"

struct mc_printer {
	struct rd_out *o;	/* JSON (a document, or lines for a server); NULL in text */
	bool color, lines;
};

static void stamp(void)
{
	struct timespec now;
	char ts[40];

	clock_gettime(CLOCK_REALTIME, &now);
	rd_format_time(&now, false, ts);
	printf("%s ", ts);
}

static void json_tally(struct rd_out *o, const struct rd_st_mc_tally *t)
{
	rd_out_str(o, RD_JSON, "sender", NULL, t->sender);
	rd_out_u64(o, RD_JSON, "qpn", NULL, t->src_qpn);
	rd_out_bool(o, RD_JSON, "ended", NULL, t->ended);
	rd_out_u64(o, RD_JSON, "expected", NULL, t->expected);
	rd_out_u64(o, RD_JSON, "received", NULL, t->received);
	rd_out_u64(o, RD_JSON, "lost", NULL, t->lost);
	rd_out_u64(o, RD_JSON, "duplicates", NULL, t->duplicates);
	rd_out_u64(o, RD_JSON, "corrupted", NULL, t->corrupted);
	rd_out_u64(o, RD_JSON, "out_of_order", NULL, t->reordered);
	rd_out_u64(o, RD_JSON, "bytes", NULL, t->size);
	rd_out_double(o, RD_JSON, "seconds", NULL, t->seconds, NULL);
}

static void print_stage(void *ctx, const struct rd_st_run *run, const struct rd_st_stage *st)
{
	const struct mc_printer *pr = ctx;

	(void)run;
	if (!pr->o)
		rd_st_print_stage(stdout, st, pr->color);
}

static void print_log(void *ctx, const char *text)
{
	const struct mc_printer *pr = ctx;

	if (pr->o) {
		/* stdout is the JSON's alone: the joined line, which a script may wait for, on stderr */
		fprintf(stderr, "rdma-selftest: %s\n", text);
		return;
	}
	stamp();
	printf("%s\n", text);
	fflush(stdout);
}

/* A server's line per sender's run; --once prints its stage instead. */
static void print_tally(void *ctx, const struct rd_st_run *run, const struct rd_st_mc_tally *t)
{
	const struct mc_printer *pr = ctx;

	if (!pr->lines)
		return;
	if (pr->o) {
		rd_out_section_begin(pr->o, NULL, NULL);
		rd_out_str(pr->o, RD_JSON, "mode", NULL, "mcast-receive");
		rd_out_str(pr->o, RD_JSON, "group", NULL, run->group);
		rd_out_str(pr->o, RD_JSON, "dev", NULL, run->dev);
		rd_out_u64(pr->o, RD_JSON, "port", NULL, run->port);
		json_tally(pr->o, t);
		rd_out_section_end(pr->o);
		fflush(stdout);
		return;
	}
	stamp();
	printf("sender %s QPN 0x%x: %llu of %llu received, %llu lost, %llu duplicates, %llu corrupted, "
	       "%llu out of order (%u B, %.3f s)%s\n", t->sender, t->src_qpn,
	       (unsigned long long)t->received, (unsigned long long)t->expected,
	       (unsigned long long)t->lost, (unsigned long long)t->duplicates,
	       (unsigned long long)t->corrupted, (unsigned long long)t->reordered, t->size, t->seconds,
	       t->ended ? "" : ", no end marker: it stopped, or the marker was lost");
	fflush(stdout);
}

int rd_stmcast_main(struct rd_cli *cli, const struct rd_st_config *cfg, bool server,
		    struct rd_out **out)
{
	struct mc_printer pr = { .color = cli->color, .lines = server && !cfg->once };
	struct rd_st_hooks h = { .ctx = &pr, .stage = print_stage, .log = print_log,
				 .mc_tally = print_tally };
	struct rd_st_run *run = malloc(sizeof(*run));
	char verdict[128];
	int status;

	*out = rd_out_new(stdout, cli->json, false);
	if (!run || !*out) {
		free(run);
		return RD_EXIT_FAIL;
	}
	pr.o = cli->json ? *out : NULL;
	/* A server's runs are JSON lines, one per sender. */
	if (cli->json && pr.lines)
		rd_out_set_stream(*out, true);
	if (!cli->json)
		printf("rdma-selftest: multicast %s (%s)\n", cfg->mcast,
		       !server ? "sender" : cfg->once ? "receiver, one sender" : "receiver");
	rd_cli_flush_warnings(cli);
	if (server)
		rd_st_mcast_recv(cfg, &h, run);
	else
		rd_st_mcast_send(cfg, &h, run);
	status = run->ok ? RD_EXIT_OK : RD_EXIT_FAIL;
	if (pr.lines) {
		/*
		 * Stopped by a signal, or it could not join: the failed stage says
		 * why (in text, print_stage showed it as it came: not again).
		 */
		if (run->failed && cli->json)
			rd_cli_error(cli, "%s: %s", run->fail_stage, run->stages[run->nstages - 1].detail);
		print_log(&pr, "stopped");
		free(run);
		return status;
	}
	rd_out_section_begin(*out, NULL, NULL);
	rd_out_str(*out, RD_JSON, "mode", NULL, server ? "mcast-receive" : "mcast-send");
	rd_out_str(*out, RD_JSON, "group", NULL, cfg->mcast);
	if (run->dev[0]) {
		rd_out_str(*out, RD_JSON, "dev", NULL, run->dev);
		rd_out_u64(*out, RD_JSON, "port", NULL, run->port);
	}
	if (run->mgid[0])
		rd_out_str(*out, RD_JSON, "mgid", NULL, run->mgid);
	rd_st_json_stages(*out, run);
	if (run->have_mc) {
		rd_out_section_begin(*out, "tally", NULL);
		json_tally(*out, &run->mc);
		rd_out_section_end(*out);
	}
	rd_out_str(*out, RD_JSON, "result", NULL, run->ok ? "pass" : "fail");
	rd_out_section_end(*out);
	rd_st_verdict(run, verdict, sizeof(verdict));
	if (!cli->json)
		printf("rdma-selftest: %s\n", verdict);
	free(run);
	return status;
}
