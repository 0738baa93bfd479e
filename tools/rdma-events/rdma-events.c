// SPDX-License-Identifier: MIT
/* rdma-events: watch the async events of every RDMA device, with link, GID and hot-plug changes. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "model/model.h"
#include "watch/watch.h"
#include "output/output.h"
#include "base/base.h"

enum {
	OPT_COUNT = RD_OPT_TOOL_BASE,
	OPT_TIMEOUT,
	OPT_UTC,
};

/* --timeout: at most a year, in whole milliseconds. */
#define MAX_TIMEOUT_S (365.0 * 24 * 3600)

static void usage(const char *prog)
{
	printf("Usage: %s [options]\n"
	       "Watch the async events of every RDMA device, one line per event, with the\n"
	       "link changes of the ports' netdevs, GID table changes and devices that come\n"
	       "and go.  Runs until interrupted, --count or --timeout.\n"
	       "\n"
	       "Options:\n"
	       "      --state           print the state of every port first, then watch\n"
	       "      --count N         exit after N events\n"
	       "      --timeout SEC     exit after SEC seconds (fractions allowed)\n"
	       "      --utc             timestamps in UTC (default: local time)\n"
	       "  -d, --device NAME     only this device (repeatable)\n"
	       "  -p, --port N          only port N\n"
	       "  -j, --json            JSON lines, one object per event\n"
	       "      --sysroot DIR     needs --state: print the port states of DIR/sys and exit\n"
	       RD_COMMON_USAGE_END
	       "\n"
	       "Exit status: 0 on --count, --timeout, SIGINT or SIGTERM; 1 when nothing can be\n"
	       "watched; 2 usage error.\n",
	       prog);
}

static enum rd_color severity_color(enum rd_ev_severity s)
{
	switch (s) {
	case RD_SEV_GOOD:
		return RD_C_GOOD;
	case RD_SEV_WARN:
		return RD_C_WARN;
	case RD_SEV_BAD:
		return RD_C_BAD;
	default:
		return RD_C_NONE;
	}
}

static const char *scope_name(enum rd_async_scope s)
{
	switch (s) {
	case RD_ASYNC_PORT:
		return "port";
	case RD_ASYNC_DEVICE:
		return "device";
	case RD_ASYNC_QP:
		return "qp";
	case RD_ASYNC_CQ:
		return "cq";
	case RD_ASYNC_SRQ:
		return "srq";
	case RD_ASYNC_WQ:
		return "wq";
	default:
		return NULL;
	}
}

static void print_link_fields(struct rd_out *o, const struct rd_ev_link *l)
{
	rd_out_str(o, RD_JSON, "netdev", NULL, l->netdev[0] ? l->netdev : NULL);
	if (!l->known)
		return;
	if (l->ifindex > 0)
		rd_out_u64(o, RD_JSON, "ifindex", NULL, (uint64_t)l->ifindex);
	/* Neither operstate nor carrier readable: whether it is up is not known, and left out. */
	if (l->operstate[0] || l->carrier >= 0)
		rd_out_bool(o, RD_JSON, "up", NULL, rd_ev_link_up(l));
	rd_out_str(o, RD_JSON, "operstate", NULL, l->operstate[0] ? l->operstate : NULL);
	if (l->carrier >= 0)
		rd_out_bool(o, RD_JSON, "carrier", NULL, l->carrier == 1);
	if (l->admin_up >= 0)
		rd_out_bool(o, RD_JSON, "admin_up", NULL, l->admin_up == 1);
	if (l->mtu)
		rd_out_u64(o, RD_JSON, "netdev_mtu", NULL, l->mtu);
}

static void print_gid_fields(struct rd_out *o, const struct rd_gid *g)
{
	char gid[40], addr[48];
	int family;

	rd_gid_format(g->raw, gid);
	rd_gid_address(g->raw, addr, &family);
	rd_out_u64(o, RD_JSON, "index", NULL, g->index);
	rd_out_str(o, RD_JSON, "gid", NULL, gid);
	rd_out_str(o, RD_JSON, family == AF_INET ? "ipv4" : "ipv6", NULL, addr);
	rd_out_str(o, RD_JSON, "ver", NULL, rd_gid_ver_name(g->ver));
	rd_out_str(o, RD_JSON, "type", NULL, g->type[0] ? g->type : NULL);
	rd_out_str(o, RD_JSON, "netdev", NULL, g->ndev[0] ? g->ndev : NULL);
	if (g->vlan >= 0)
		rd_out_u64(o, RD_JSON, "vlan", NULL, (uint64_t)g->vlan);
}

static void print_event(struct rd_out *o, const struct rd_event *ev, bool utc)
{
	char t[40];

	rd_ev_format_time(&ev->time, utc, t);
	rd_out_section_begin(o, NULL, NULL);
	rd_out_str(o, RD_JSON, "time", NULL, t);
	rd_out_u64(o, RD_JSON, "ts_ms", NULL,
		   (uint64_t)ev->time.tv_sec * 1000 + (uint64_t)ev->time.tv_nsec / 1000000);
	rd_out_str(o, RD_JSON, "dev", NULL, ev->dev);
	if (ev->port)
		rd_out_u64(o, RD_JSON, "port", NULL, ev->port);
	rd_out_str(o, RD_JSON, "event", NULL, ev->name);
	rd_out_str(o, RD_JSON, "source", NULL, rd_ev_source_name(ev->source));
	rd_out_str(o, RD_JSON, "message", NULL, ev->text);
	switch (ev->source) {
	case RD_EVSRC_ASYNC:
		rd_out_str(o, RD_JSON, "scope", NULL, scope_name(rd_async_event_scope(ev->async_type)));
		break;
	case RD_EVSRC_LINK:
		print_link_fields(o, &ev->link);
		if (strcmp(ev->name, "LINK_MTU") == 0)
			rd_out_u64(o, RD_JSON, "old_netdev_mtu", NULL, ev->link.old_mtu);
		if (strcmp(ev->name, "LINK_RENAME") == 0)
			rd_out_str(o, RD_JSON, "old_netdev", NULL, ev->link.old_netdev);
		break;
	case RD_EVSRC_GID:
		print_gid_fields(o, &ev->gid);
		if (strcmp(ev->name, "GID_MOD") == 0) {
			rd_out_section_begin(o, "old", NULL);
			print_gid_fields(o, &ev->old_gid);
			rd_out_section_end(o);
		}
		break;
	case RD_EVSRC_DEVICE:
		rd_out_str(o, RD_JSON, "uverbs", NULL, ev->uverbs[0] ? ev->uverbs : NULL);
		rd_out_str(o, RD_JSON, "reason", NULL, ev->reason);
		if (strcmp(ev->name, "DEVICE_ADDED") == 0)
			rd_out_u64(o, RD_JSON, "ports", NULL, ev->nports);
		rd_out_str(o, RD_JSON, "old_dev", NULL, ev->old_dev[0] ? ev->old_dev : NULL);
		break;
	case RD_EVSRC_STATE:
		if (ev->has_state)
			rd_out_str(o, RD_JSON, "state", NULL, rd_port_state_name(ev->state));
		if (ev->has_phys_state)
			rd_out_str(o, RD_JSON, "phys_state", NULL, rd_phys_state_name(ev->phys_state));
		rd_out_str(o, RD_JSON, "link_layer", NULL, ev->link_layer);
		print_link_fields(o, &ev->link);
		break;
	}
	/* Text: TIME DEV [port N] EVENT  what it means */
	rd_out_text(o, RD_C_NONE, "%s ", t);
	rd_out_text(o, RD_C_NAME, "%s", ev->dev);
	if (ev->port)
		rd_out_text(o, RD_C_NONE, " port %u", ev->port);
	rd_out_text(o, RD_C_NONE, " ");
	rd_out_text(o, severity_color(ev->severity), "%s", ev->name);
	rd_out_text(o, RD_C_NONE, "  %s\n", ev->text);
	rd_out_section_end(o);
}

/* --sysroot --state: the state of every selected port of a captured tree. */
static int print_sysroot_state(struct rd_cli *cli, struct rd_out *o,
			       const struct rd_device_list *list, bool utc)
{
	struct rd_netdev_cache netdevs;

	rd_netdev_cache_init(&netdevs, &cli->sr);
	for (unsigned int i = 0; i < list->n; i++) {
		const struct rd_device *d = &list->v[i];

		for (unsigned int j = 0; j < d->nports; j++) {
			const struct rd_port *p = &d->ports[j];
			struct rd_ev_link l = { 0 };
			struct rd_event ev;
			char ndev[64];
			enum rd_map_via via;
			bool other_netns;

			if (!rd_cli_port_selected(cli, p))
				continue;
			rd_port_netdev_cached(&netdevs, NULL, d, p, NULL, ndev, sizeof(ndev), &via,
					      &other_netns);
			rd_ev_link_from_sysfs(&cli->sr, ndev, &l);
			if (l.known && l.oper_err)
				rd_warn(&cli->warnings, "%s: operstate: %s; its state is unknown", ndev,
					rd_read_strerror(l.oper_err));
			rd_event_port_state(&ev, d, p, &l);
			print_event(o, &ev, utc);
		}
	}
	rd_netdev_cache_free(&netdevs);
	return RD_EXIT_OK;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "state", no_argument, NULL, 's' },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "utc", no_argument, NULL, OPT_UTC },
		RD_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct rd_device_list list = { 0 };
	struct rd_watch *w = NULL;
	struct rd_out *o = NULL;
	bool state = false, utc = false;
	uint64_t count = 0, seen = 0;
	int64_t timeout_ms = -1, deadline = -1;
	int opt, sfd = -1, ret = RD_EXIT_FAIL;
	struct rd_cli cli;
	sigset_t sigs;

	rd_cli_init(&cli, "rdma-events");
	while ((opt = rd_cli_getopt(&cli, argc, argv, ":" RD_COMMON_SHORTOPTS, longopts)) != -1) {
		if (opt == RD_CLI_OPT_USAGE) {
			ret = RD_EXIT_USAGE;
			goto out;
		}
		switch (opt) {
		case 's':
			state = true;
			break;
		case OPT_COUNT:
			ret = rd_cli_uint(&cli, "--count", optarg, 1, UINT32_MAX, &count);
			if (ret)
				goto out;
			break;
		case OPT_TIMEOUT: {
			double secs = 0;

			ret = rd_cli_duration(&cli, "--timeout", optarg, 0.001, MAX_TIMEOUT_S, &secs);
			if (ret)
				goto out;
			timeout_ms = (int64_t)ceil(secs * 1000);
			break;
		}
		case OPT_UTC:
			utc = true;
			break;
		default:
			ret = rd_cli_getopt_error(&cli, opt, argv);
			goto out;
		}
	}
	ret = rd_cli_operands(&cli, argc, argv, usage, 0, "devices go with -d");
	if (ret >= 0)
		goto out;
	if (timeout_ms >= 0)
		deadline = now_ms() + timeout_ms;
	if (cli.sysroot_dir) {
		/* Events come from the running kernel; a copied tree has only its state. */
		if (!state) {
			ret = rd_cli_usage_error(&cli, "--sysroot needs --state: watching events needs the live "
						 "kernel; --state prints the port states of the tree and exits");
			goto out;
		}
		if (count || timeout_ms >= 0) {
			ret = rd_cli_usage_error(&cli, "--count and --timeout watch the live kernel; not "
						 "with --sysroot");
			goto out;
		}
	}
	ret = rd_cli_setup(&cli);
	if (ret >= 0)
		goto out;
	/*
	 * Names and ports are checked against sysfs first: one clear error.  The
	 * watch maps each port's netdev itself: no netdev lists.
	 */
	cli.scan_flags = RD_SCAN_NO_NETDEVS;
	ret = rd_cli_scan_devices(&cli, &list);
	if (ret)
		goto out;
	/* Line-buffered even into a pipe: a watcher's lines must not wait. */
	(void)setvbuf(stdout, NULL, _IOLBF, 0);	/* cannot fail before any output */
	o = rd_out_new(stdout, cli.json, cli.color);
	if (!o) {
		rd_cli_error(&cli, "out of memory");
		ret = RD_EXIT_FAIL;
		goto out;
	}
	rd_out_set_stream(o, true);
	if (cli.sysroot_dir) {
		rd_cli_flush_warnings(&cli);
		ret = print_sysroot_state(&cli, o, &list, utc);
		goto out;
	}
	rd_device_list_free(&list);

	/*
	 * SIGINT and SIGTERM arrive on the epoll as a signalfd: a clean exit,
	 * status 0.  Their default disposition first: a shell without job
	 * control starts background commands with SIGINT ignored, and an
	 * ignored signal never reaches a signalfd; `rdma-events &` in a
	 * script must still stop on kill -INT (tcpdump does the same).
	 */
	(void)signal(SIGINT, SIG_DFL);	/* valid signals: cannot fail */
	(void)signal(SIGTERM, SIG_DFL);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL) < 0 ||
	    (sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		rd_cli_error(&cli, "signalfd: %s", strerror(errno));
		ret = RD_EXIT_FAIL;
		goto out;
	}
	{
		struct rd_watch_opts wo = {
			.devices = &cli.devices, .port = cli.port, .state = state, .stop_fd = sfd,
		};
		int err = rd_watch_open(&w, &wo, &cli.warnings);

		rd_cli_flush_warnings(&cli);
		if (err) {
			rd_cli_error(&cli, "cannot watch: %s", strerror(-err));
			ret = RD_EXIT_FAIL;
			goto out;
		}
	}
	if (rd_watch_ndevices(w) == 0) {
		rd_cli_error(&cli, "nothing to watch: no RDMA device could be opened (see the warnings above)");
		ret = RD_EXIT_FAIL;
		goto out;
	}

	for (;;) {
		struct rd_event ev;
		int wait = -1, r;

		if (deadline >= 0) {
			int64_t left = deadline - now_ms();

			wait = left > 0 ? (int)(left > INT32_MAX ? INT32_MAX : left) : 0;
		}
		r = rd_watch_next(w, &ev, wait);
		rd_cli_flush_warnings(&cli);
		if (r == RD_WATCH_STOP || (r == RD_WATCH_TIMEOUT && deadline >= 0 && now_ms() >= deadline)) {
			ret = RD_EXIT_OK;
			break;
		}
		if (r == RD_WATCH_TIMEOUT || r == RD_WATCH_WARNING)
			continue;	/* the warnings went out above */
		if (r < 0) {
			rd_cli_error(&cli, "watching failed: %s", strerror(-r));
			ret = RD_EXIT_FAIL;
			break;
		}
		print_event(o, &ev, utc);
		if (ferror(stdout)) {	/* reported at exit, with the reason */
			ret = RD_EXIT_FAIL;
			break;
		}
		if (ev.source != RD_EVSRC_STATE && count && ++seen >= count) {
			ret = RD_EXIT_OK;
			break;
		}
	}
out:
	rd_watch_close(w);
	if (sfd >= 0)
		close(sfd);
	rd_device_list_free(&list);
	return rd_cli_exit(&cli, o, ret);
}
