// SPDX-License-Identifier: MIT
/*
 * rdma-selftest: loopback or peer send/recv self-test with staged PASS/FAIL,
 * a diagnosis for every failure, latency and bandwidth.  The engine
 * (lib/selftest/engine.h) runs it; this is options and printing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "cli/cli.h"
#include "output/output.h"
#include "selftest/selftest.h"
#include "stmcast.h"
#include "stmesh.h"
#include "stopts.h"


static volatile int stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(const char *prog)
{
	printf("Usage: %s [options]              loopback test of every active port\n"
	       "       %s [options] PEER         test a --server running on PEER\n"
	       "       %s --server [options]     serve clients, forever\n"
	       "       %s --mesh [--hosts LIST] [options]\n"
	       "                                            every host of LIST tests every other\n"
	       "       %s --mcast GROUP [--server [--once]] [options]\n"
	       "                                            multicast: send, or receive\n"
	       "Staged RDMA send/recv self-test: connect, ping-pong with data verification,\n"
	       "latency, bandwidth; PASS/FAIL per stage with a diagnosis.\n"
	       "\n"
	       "Options:\n"
	       "  -d, --device NAME     RDMA device (loopback: only this one; --verbs: use it)\n"
	       "  -p, --port N          its port\n"
	       "  -x, --gid N           GID index (loopback, --verbs; default rdma-gids --best)\n"
	       "      --verbs           connect with raw verbs and a TCP exchange, not rdma_cm\n"
	       "      --server          serve clients one after another until SIGINT/SIGTERM\n"
	       "      --once            with --server: exit after one client (its result is the\n"
	       "                        exit status)\n"
	       "      --bind ADDR       server: listen on ADDR; client: use ADDR as source\n"
	       "      --mesh            serve and test the other hosts in rounds (run on every\n"
	       "                        host by srun, pdsh or clush); one line per pair\n"
	       "  -w, --hosts LIST      the mesh's hosts (Slurm syntax; default\n"
	       "                        $SLURM_JOB_NODELIST)\n"
	       "      --hostfile FILE   the same from a file\n"
	       "      --pairs PLAN      who tests whom: all (default: every other host, N-1\n"
	       "                        rounds), ring (the next host, 1 round), random:K[:SEED]\n"
	       "                        (K peers each, K rounds), leaves:S (hosts in leaf\n"
	       "                        switches of S: every leaf pair, ceil(N/S) rounds)\n"
	       "      --self NAME       this host's name in the list (default SLURMD_NODENAME,\n"
	       "                        else the host name)\n"
	       "      --mesh-wait SEC   how long a peer may take to answer (default 60)\n"
	       "      --devices all|DEV[:PORT],...  mesh rails: test each against the peer's\n"
	       "                        port of the same device name (TCP exchange)\n"
	       "      --cross           with --devices: every rail against every peer rail\n"
	       "      --peer-dev DEV[:PORT]  client: use this device of the server (implies\n"
	       "                        --verbs; -d chooses ours)\n"
	       "  -P, --service-port P  rdma_cm and TCP port (default %d)\n"
	       "  -n, --iterations N    latency round trips and bandwidth messages\n"
	       "                        (default 1000)\n"
	       "      --pings N         verified ping-pong messages (default 100)\n"
	       "  -s, --size BYTES      message size (default 64; bandwidth 65536)\n"
	       "      --sizes LIST      bandwidth and latency for each size (comma list)\n"
	       "  -a, --all-sizes       every power of two from 2 B to 1 MiB\n"
	       "      --window N        outstanding sends in the bandwidth stage (default 128;\n"
	       "                        lowered for big messages to fit the server's 64 MiB)\n"
	       "  -D, --duration SEC    bandwidth for SEC seconds instead of -n messages\n"
	       "      --op OPS          send (default), write, read, atomic, all (comma list):\n"
	       "                        each verified (--quick: only that), latency, bandwidth\n"
	       "      --mcast GROUP     join the multicast GROUP through rdma_cm and send -n\n"
	       "                        datagrams (default 100) of -s bytes; with --server,\n"
	       "                        receive and tally each sender (--bind: the interface)\n"
	       "      --qp rc|ud        the QP type (default rc); ud: send only, messages up\n"
	       "                        to the path MTU, endpoints over the TCP exchange\n"
	       "      --quick           connect and ping-pong only\n"
	       "      --latency-only    skip the bandwidth stage\n"
	       "      --bandwidth-only  skip the latency stage\n"
	       "      --timeout SEC     longest wait for any answer (CM event, completion,\n"
	       "                        TCP), default 5\n"
	       "      --expect-gbps X   fail when the bandwidth is below X Gb/s\n"
	       "      --expect-lat-us Y fail when the median latency is above Y us\n"
	       "      --no-counters     no counters stage (the port's retransmit, congestion\n"
	       "                        and drop counters before and after the run)\n"
	       "      --qp-timeout N --retry-cnt N --rnr-retry N --min-rnr-timer N --mtu BYTES\n"
	       "                        RC QP attributes (defaults 14, 7, 7, 12, the port's;\n"
	       "                        --mtu with a PEER needs --verbs)\n"
	       "      --tc N            traffic class of the packets this side sends (RoCE:\n"
	       "                        DSCP << 2; rdma_cm: the type of service), default 0\n"
	       "      --sl N            service level (--verbs and loopback), default 0\n"
	       "  -j, --json            one JSON document\n"
	       "      --color[=WHEN]    colour: auto (default), always, never\n"
	       "  -h, --help            this help\n"
	       "  -V, --version         version\n"
	       "\n"
	       "Exit status: 0 every stage passed, 1 a stage failed, 2 usage error.\n",
	       prog, prog, prog, prog, prog, RD_ST_SERVICE_PORT);
}

/* ---- printing what the engine reports ---- */

struct printer {
	struct rd_out *o;
	bool json, color;
};

static void print_stage(void *ctx, const struct rd_st_run *run, const struct rd_st_stage *st)
{
	const struct printer *pr = ctx;

	(void)run;
	if (!pr->json)
		rd_st_print_stage(stdout, st, pr->color);
}

static void print_figures(void *ctx, const struct rd_st_run *run)
{
	if (!((const struct printer *)ctx)->json)
		rd_st_print_figures(stdout, run);
}

static void print_note(void *ctx, const char *text)
{
	if (!((const struct printer *)ctx)->json)
		printf("  note: %s\n", text);
}

static void print_begin(void *ctx, const struct rd_st_run *run)
{
	if (((const struct printer *)ctx)->json)
		return;
	printf("%s port %u: loopback\n", run->dev, run->port);
	if (run->gid_index >= 0)
		printf("  GID %d (%s, %s)\n", run->gid_index, run->ver == RD_GID_VER_V2 ? "RoCE v2" :
		       run->ver == RD_GID_VER_V1 ? "RoCE v1" : run->gid_type, run->addr);
}

/* The server's log: one timestamped line per client event. */
static void print_log(void *ctx, const char *text)
{
	struct timespec now;
	char ts[40];

	(void)ctx;
	clock_gettime(CLOCK_REALTIME, &now);
	rd_format_time(&now, false, ts);
	printf("%s %s\n", ts, text);
	fflush(stdout);
}

/* Every selected port in loopback; true when all passed. */
static bool loopback_all(struct rd_cli *cli, const struct rd_st_config *cfg,
			 const struct rd_device_list *list, const struct rd_st_hooks *h,
			 struct printer *pr, struct rd_st_run *run)
{
	unsigned int tested = 0;
	struct rd_st_next next;
	char verdict[128];
	bool all = true;

	rd_out_list_begin(pr->o, "ports");
	for (unsigned int i = 0; i < list->n && !stop; i++) {
		for (unsigned int j = 0; j < list->v[i].nports && !stop; j++) {
			const struct rd_port *p = &list->v[i].ports[j];

			/* Without -d/-p, only ACTIVE ports; asked for, a down port fails. */
			if (!rd_cli_port_selected(cli, p) || (!cli->devices.n && !cli->port && p->state != 4))
				continue;
			tested++;
			rd_st_loopback(cfg, &cli->sr, &list->v[i], p, h, run);
			rd_out_section_begin(pr->o, NULL, NULL);
			rd_out_str(pr->o, RD_JSON, "dev", NULL, list->v[i].name);
			rd_out_u64(pr->o, RD_JSON, "port", NULL, p->num);
			if (run->gid_index >= 0) {
				rd_out_u64(pr->o, RD_JSON, "gid_index", NULL, (uint64_t)run->gid_index);
				rd_out_str(pr->o, RD_JSON, "gid_type", NULL, run->gid_type);
			}
			rd_st_json_stages(pr->o, run);
			rd_out_str(pr->o, RD_JSON, "result", NULL, run->ok ? "pass" : "fail");
			if (run->ok) {
				rd_st_next_cmds(cfg, run, NULL, &next);
				rd_st_json_next(pr->o, &next);
				if (!pr->json)
					rd_st_print_next(stdout, &next, NULL);
			}
			rd_out_section_end(pr->o);
			rd_st_verdict(run, verdict, sizeof(verdict));
			if (!pr->json)
				printf("%s port %u: %s\n\n", list->v[i].name, p->num, verdict);
			all = run->ok && all;
		}
	}
	rd_out_list_end(pr->o);
	if (!tested)
		rd_cli_error(cli, "no ACTIVE port to test (see rdma-devinfo)");
	return all && tested;
}

static bool client(const struct rd_cli *cli, const struct rd_st_config *cfg,
		   const struct rd_device_list *list, const struct rd_st_hooks *h,
		   struct printer *pr, struct rd_st_run *run)
{
	rd_out_str(pr->o, RD_JSON, "peer", NULL, cfg->peer);
	rd_out_u64(pr->o, RD_JSON, "service_port", NULL, cfg->service_port);
	if (!pr->json)
		printf("rdma-selftest: %s port %u (%s)\n", cfg->peer, cfg->service_port,
		       cfg->ud ? "UD, verbs with a TCP exchange" :
		       cfg->verbs ? "verbs with a TCP exchange" : "rdma_cm");
	rd_st_client(cfg, &cli->sr, list, cli->port, h, run);
	rd_st_json_stages(pr->o, run);
	rd_st_json_where(pr->o, run);
	if (run->peer_dev[0]) {
		rd_out_str(pr->o, RD_JSON, "peer_dev", NULL, run->peer_dev);
		rd_out_u64(pr->o, RD_JSON, "peer_port", NULL, run->peer_port);
	}
	rd_out_str(pr->o, RD_JSON, "result", NULL, run->ok ? "pass" : "fail");
	if (run->failed && !run->figures)
		rd_out_str(pr->o, RD_JSON, "failed_stage", NULL, run->fail_stage);
	if (run->ok) {
		struct rd_st_next next;

		rd_st_next_cmds(cfg, run, cfg->peer, &next);
		rd_st_json_next(pr->o, &next);
		if (!pr->json)
			rd_st_print_next(stdout, &next, cfg->peer);
	}
	if (!pr->json) {
		char verdict[128];

		rd_st_verdict(run, verdict, sizeof(verdict));
		printf("rdma-selftest: %s\n", verdict);
	}
	return run->ok;
}

/* The long name of option opt, for messages ("mcast" for --mcast). */
static const char *long_name(const struct option *longopts, int opt)
{
	for (const struct option *o = longopts; o->name; o++)
		if (o->val == opt)
			return o->name;
	return "?";
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "server", no_argument, NULL, OPT_SERVER },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "bind", required_argument, NULL, OPT_BIND },
		{ "service-port", required_argument, NULL, 'P' },
		{ "verbs", no_argument, NULL, OPT_VERBS },
		{ "gid-index", required_argument, NULL, 'x' },
		{ "gid", required_argument, NULL, 'x' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "iters", required_argument, NULL, 'n' },	/* its name before 0.2 */
		{ "pings", required_argument, NULL, OPT_PINGS },
		{ "size", required_argument, NULL, 's' },
		{ "sizes", required_argument, NULL, OPT_SIZES },
		{ "all-sizes", no_argument, NULL, 'a' },
		{ "window", required_argument, NULL, OPT_WINDOW },
		{ "duration", required_argument, NULL, 'D' },
		{ "quick", no_argument, NULL, OPT_QUICK },
		{ "latency-only", no_argument, NULL, OPT_LAT_ONLY },
		{ "bandwidth-only", no_argument, NULL, OPT_BW_ONLY },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "expect-gbps", required_argument, NULL, OPT_EXPECT_GBPS },
		{ "expect-lat-us", required_argument, NULL, OPT_EXPECT_LAT },
		{ "qp-timeout", required_argument, NULL, OPT_QP_TIMEOUT },
		{ "retry-cnt", required_argument, NULL, OPT_RETRY },
		{ "rnr-retry", required_argument, NULL, OPT_RNR_RETRY },
		{ "min-rnr-timer", required_argument, NULL, OPT_MIN_RNR },
		{ "mtu", required_argument, NULL, OPT_MTU },
		{ "mesh", no_argument, NULL, OPT_MESH },
		{ "hosts", required_argument, NULL, 'w' },
		{ "hostfile", required_argument, NULL, OPT_HOSTFILE },
		{ "pairs", required_argument, NULL, OPT_PAIRS },
		{ "self", required_argument, NULL, OPT_SELF },
		{ "mesh-wait", required_argument, NULL, OPT_MESH_WAIT },
		{ "op", required_argument, NULL, OPT_OP },
		{ "deny", required_argument, NULL, OPT_DENY },
		{ "no-counters", no_argument, NULL, OPT_NO_COUNTERS },
		{ "tc", required_argument, NULL, OPT_TC },
		{ "sl", required_argument, NULL, OPT_SL },
		{ "qp", required_argument, NULL, OPT_QP },
		{ "mcast", required_argument, NULL, OPT_MCAST },
		{ "devices", required_argument, NULL, OPT_DEVICES },
		{ "cross", no_argument, NULL, OPT_CROSS },
		{ "peer-dev", required_argument, NULL, OPT_PEER_DEV },
		RD_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct rd_st_config cfg;
	struct rd_device_list list = { 0 };
	struct printer pr = { 0 };
	struct rd_st_hooks hooks = { .ctx = &pr, .begin = print_begin, .stage = print_stage,
				     .note = print_note, .figures = print_figures, .log = print_log };
	struct rd_st_run *run = NULL;
	struct rd_cli cli;
	struct sigaction sa = { .sa_handler = on_signal };
	struct rd_st_choices ch = { .mesh_opts = { .wait_ms = 60000 } };
	bool ok;
	const char *why;
	char opnames[96];
	int opt, ret;

	rd_cli_init(&cli, "rdma-selftest");
	rd_st_config_default(&cfg);
	cfg.stop = &stop;
	while ((opt = rd_cli_getopt(&cli, argc, argv, ":P:x:n:s:aD:w:" RD_COMMON_SHORTOPTS, longopts)) != -1) {
		if (opt == RD_CLI_OPT_USAGE) {
			ret = RD_EXIT_USAGE;
			goto out;
		}
		opnames[0] = '\0';
		ret = rd_st_opt_apply(opt, optarg, &cfg, &ch, opnames);
		if (ret == -ENOENT) {
			ret = rd_cli_getopt_error(&cli, opt, argv);
			goto out;
		}
		if (ret) {
			ret = opnames[0] ? rd_cli_usage_error(&cli, "--%s: %s", long_name(longopts, opt),
							      opnames) :
					   rd_cli_bad_value(&cli, opt, optarg, longopts);
			goto out;
		}
	}
	ret = rd_cli_operands(&cli, argc, argv, usage, 1, "one PEER");
	if (ret >= 0)
		goto out;
	if (optind < argc)
		cfg.peer = argv[optind++];
	why = rd_st_config_conflict(&cfg, ch.server);
	if (!why && ch.mesh && cfg.mcast)
		why = "choose one of --mesh and --mcast";
	if (!why && ch.mesh && (ch.server || cfg.peer || cfg.ud || cfg.peer_dev))
		why = "--mesh tests the hosts of its list: no PEER, --server, --qp ud or --peer-dev "
		      "(--devices names the rails)";
	if (!why && !ch.mesh && (ch.mesh_opts.devices || ch.mesh_opts.cross))
		why = "--devices and --cross go with --mesh (one pair: -d and --peer-dev)";
	if (!why && ch.mesh_opts.cross && !ch.mesh_opts.devices)
		why = "--cross needs --devices (every rail to every rail)";
	if (!why && cfg.peer_dev && (ch.server || !cfg.peer || cfg.mcast))
		why = "--peer-dev names the server's device for a client: it needs a PEER";
	if (!why && !ch.mesh && (ch.mesh_opts.hosts || ch.mesh_opts.hostfile || ch.mesh_opts.self))
		why = "--hosts, --hostfile and --self go with --mesh";
	if (!why && ch.mesh_opts.hosts && ch.mesh_opts.hostfile)
		why = "choose one of --hosts and --hostfile";
	if (!why && cli.sysroot_dir)
		why = "--sysroot: a self-test needs the live system";
	if (why) {
		ret = rd_cli_usage_error(&cli, "%s", why);
		goto out;
	}
	if (ch.all_sizes) {
		/* UD: a datagram is at most one packet (the run keeps those within the path MTU). */
		cfg.nsizes = 0;
		cfg.all_sizes = true;
		for (uint32_t sz = 2; sz <= (cfg.ud ? 4096u : 1u << 20); sz <<= 1)
			cfg.sizes[cfg.nsizes++] = sz;
	}
	if (cfg.mcast && !ch.iters_given)
		cfg.iters = 100;
	/*
	 * UD has no connection for rdma_cm to make, and rdma_cm cannot name the
	 * server's device: the endpoints go over the TCP exchange.
	 */
	if ((cfg.ud || cfg.peer_dev) && cfg.peer)
		cfg.verbs = true;
	rd_st_config_finish(&cfg);
	ret = rd_cli_setup(&cli);
	if (ret >= 0)
		goto out;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	(void)signal(SIGPIPE, SIG_IGN);	/* a valid signal: cannot fail */

	if (ch.mesh) {
		ret = rd_stmesh_main(&cli, &cfg, &ch.mesh_opts, &pr.o);
		goto out;
	}
	if (cfg.mcast) {
		ret = rd_stmcast_main(&cli, &cfg, ch.server, &pr.o);
		goto out;
	}
	/* The client side of rdma_cm picks its device by route; others scan. */
	cli.scan_flags = RD_SCAN_NO_NETDEVS;
	if (!(cfg.peer && !cfg.verbs) && (ret = rd_cli_scan_devices(&cli, &list)))
		goto out;
	if (ch.server) {
		char err[256] = "";

		rd_cli_flush_warnings(&cli);
		ret = rd_st_server(&cfg, &cli.sr, &list, &hooks, err, sizeof(err));
		if (ret < 0)
			rd_cli_error(&cli, "%s", err);
		ret = ret ? RD_EXIT_FAIL : RD_EXIT_OK;
		goto out;
	}
	pr.json = cli.json;
	pr.color = cli.color;
	pr.o = rd_out_new(stdout, cli.json, false);
	run = malloc(sizeof(*run));
	if (!pr.o || !run) {
		ret = RD_EXIT_FAIL;
		goto out;
	}
	rd_out_section_begin(pr.o, NULL, NULL);
	rd_out_str(pr.o, RD_JSON, "mode", NULL, cfg.peer ? (cfg.verbs ? "verbs" : "rdma_cm") : "loopback");
	rd_st_ops_str(cfg.ops, opnames, sizeof(opnames));
	rd_out_str(pr.o, RD_JSON, "ops", NULL, opnames);
	ok = cfg.peer ? client(&cli, &cfg, &list, &hooks, &pr, run) :
			loopback_all(&cli, &cfg, &list, &hooks, &pr, run);
	if (!cfg.peer)
		rd_out_str(pr.o, RD_JSON, "result", NULL, ok ? "pass" : "fail");
	rd_out_section_end(pr.o);
	ret = ok && !stop ? RD_EXIT_OK : RD_EXIT_FAIL;
out:
	free(run);
	rd_device_list_free(&list);
	return rd_cli_exit(&cli, pr.o, ret);
}
