// SPDX-License-Identifier: MIT
/* The mesh self-test: a server thread for the peers that test us, our own rounds as a client. */
#define _GNU_SOURCE
#include "mesh.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bool same_host(const char *a, const char *b)
{
	size_t la = strcspn(a, "."), lb = strcspn(b, ".");

	if (strcmp(a, b) == 0)
		return true;
	/* "node01" and "node01.cluster": the short names match */
	return la == lb && strncmp(a, b, la) == 0 && (!a[la] || !b[lb]);
}

int rd_st_mesh_self(const struct rd_st_mesh *m)
{
	for (size_t i = 0; i < m->hosts->n; i++)
		if (same_host(m->hosts->v[i], m->self))
			return (int)i;
	return -1;
}

struct serve_ctx {
	struct rd_st_config cfg;
	const struct rd_sysroot *sr;
	const struct rd_device_list *list;
	volatile int halt;
	volatile int finished;		/* the thread is over: ret and why are set */
	int ret;
	char why[256];
};

static void *serve(void *p)
{
	struct serve_ctx *s = p;

	s->ret = rd_st_server(&s->cfg, s->sr, s->list, NULL, s->why, sizeof(s->why));
	__atomic_store_n(&s->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The server thread is over because it could not serve (not because every peer came). */
static bool server_failed(struct serve_ctx *s)
{
	return __atomic_load_n(&s->finished, __ATOMIC_ACQUIRE) && s->ret < 0;
}

static void nap_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The stop flag of the user's config, or never. */
static bool stopped(const struct rd_st_config *cfg)
{
	return cfg->stop && *cfg->stop;
}

/*
 * A pair that never connected: every attempt until the wait was over found no
 * server.  In a mesh that means the peer's own rdma-selftest --mesh is not
 * running (not started, another host list, another port), which the
 * connect stage cannot know: say it after its diagnosis.  A pair that met a
 * passing failure each time gets the count of its attempts.
 */
static void mesh_hint(struct rd_st_run *run, const struct rd_st_pair *pair, unsigned int port)
{
	for (unsigned int i = 0; i < run->nstages; i++) {
		struct rd_st_stage *st = &run->stages[i];
		size_t n = strlen(st->detail);

		if (st->ok || strcmp(st->name, run->fail_stage) != 0)
			continue;
		if (!strstr(st->detail, "no rdma-selftest server")) {
			/* something answered, and failed each time: the diagnosis says what */
			if (pair->attempts > 1 && n < sizeof(st->detail))
				snprintf(st->detail + n, sizeof(st->detail) - n,
					 " [mesh: %u attempts in %.1f s]", pair->attempts,
					 pair->wait_ms / 1000);
			break;
		}
		if (n < sizeof(st->detail))
			snprintf(st->detail + n, sizeof(st->detail) - n,
				 " [mesh: %u attempt%s in %.1f s: is 'rdma-selftest --mesh' running on %s, "
				 "with this host in its list and -P %u?]",
				 pair->attempts, pair->attempts == 1 ? "" : "s", pair->wait_ms / 1000,
				 pair->dst, port);
		break;
	}
}

/*
 * A pair whose peer's server did not take it yet (not listening, or busy with
 * another peer), or whose QP bring-up met an address still resolving on
 * either side: worth another attempt until the wait is over.  rdma_cm says so
 * at its connect stage; the TCP exchange says which (run->retry).  Name and
 * route failures, and every other answer, are final.
 */
static bool try_again(const struct rd_st_config *c, const struct rd_st_run *run)
{
	if (run->ok || !run->failed)
		return false;
	if (c->verbs)
		return run->retry;
	return strcmp(run->fail_stage, "connect") == 0;
}

struct mesh_state {
	const struct rd_st_config *cfg;
	const struct rd_sysroot *sr;
	const struct rd_device_list *list;
	const struct rd_st_mesh *m;
	const struct rd_st_hooks *h;
	struct serve_ctx *s;
	struct rd_st_run *run;
	rd_st_pair_fn done;
	void *ctx;
	unsigned int failed;
};

/* One pair: from this host's rail li (or rdma_cm's choice, li < 0) to dst's rail pi. */
static void test_pair(struct mesh_state *ms, const char *dst, unsigned int round, int li, int pi)
{
	const struct rd_st_mesh *m = ms->m;
	struct rd_st_config c = *ms->cfg;
	struct rd_st_pair pair = { .src = m->hosts->v[rd_st_mesh_self(m)], .dst = dst, .round = round,
				   .run = ms->run };
	struct rd_device_list one = { 0 };
	const struct rd_device_list *list = ms->list;
	unsigned int ib_port = 0;
	uint64_t t0 = rd_now_ns(), give_up = t0 + (uint64_t)m->wait_ms * 1000000;

	c.peer = dst;
	if (li >= 0) {
		/* the TCP exchange names the peer's device; rdma_cm could only route */
		c.verbs = true;
		c.peer_dev = m->rails[pi].dev->name;
		c.peer_port = m->rails[pi].port;
		one.v = (struct rd_device *)m->rails[li].dev;
		one.n = 1;
		list = &one;
		ib_port = m->rails[li].port;
		pair.src_dev = m->rails[li].dev->name;
		pair.src_port = m->rails[li].port;
		pair.dst_dev = c.peer_dev;
		pair.dst_port = c.peer_port;
	}
	for (;;) {
		pair.attempts++;
		pair.wait_ms = (double)(rd_now_ns() - t0) / 1e6;
		rd_st_client(&c, ms->sr, list, ib_port, ms->h, ms->run);
		if (!try_again(&c, ms->run) || rd_now_ns() >= give_up || stopped(ms->cfg) ||
		    server_failed(ms->s))
			break;
		nap_ms(500);
	}
	if (try_again(&c, ms->run) && !stopped(ms->cfg))
		mesh_hint(ms->run, &pair, ms->cfg->service_port);
	if (!ms->run->ok)
		ms->failed++;
	if (ms->done)
		ms->done(ms->ctx, &pair);
}

int rd_st_mesh_run(const struct rd_st_config *cfg, const struct rd_sysroot *sr,
		   const struct rd_device_list *list, const struct rd_st_mesh *m,
		   const struct rd_st_hooks *h, rd_st_pair_fn done, void *ctx, unsigned int *failed,
		   char *why, size_t why_len)
{
	size_t n = m->hosts->n;
	int self = rd_st_mesh_self(m);
	unsigned int rounds, incoming;
	struct serve_ctx *s;
	struct rd_st_run *run;
	struct mesh_state ms;
	pthread_t th;
	uint64_t end;

	*failed = 0;
	if (self < 0) {
		snprintf(why, why_len, "this host (%s) is not in the host list", m->self);
		return -ENOENT;
	}
	if (n < 2) {
		snprintf(why, why_len, "a mesh needs at least two hosts (the list has %zu)", n);
		return -EINVAL;
	}
	if (m->sched->n != n) {
		snprintf(why, why_len, "the schedule is for %zu hosts, the list has %zu", m->sched->n, n);
		return -EINVAL;
	}
	rounds = m->sched->rounds;
	/* the peers that test us, each on every rail (pair) of ours */
	incoming = rd_st_schedule_incoming(m->sched, (size_t)self) *
		   (unsigned int)(m->nrails ? m->nrails * (m->cross ? m->nrails : 1) : 1);
	s = calloc(1, sizeof(*s));
	run = malloc(sizeof(*run));
	if (!s || !run) {
		free(s);
		free(run);
		return -ENOMEM;
	}
	s->cfg = *cfg;
	s->cfg.peer = NULL;
	s->cfg.once = false;
	s->cfg.max_clients = incoming;
	s->cfg.stop = &s->halt;
	s->sr = sr;
	s->list = list;
	/* our server thread and our client poll at once: on one CPU each must let the other run */
	rd_rc_spin_yields(true);
	if (pthread_create(&th, NULL, serve, s)) {
		rd_rc_spin_yields(false);
		snprintf(why, why_len, "cannot start the server thread");
		free(s);
		free(run);
		return -EAGAIN;
	}
	ms = (struct mesh_state){ .cfg = cfg, .sr = sr, .list = list, .m = m, .h = h, .s = s,
				  .run = run, .done = done, .ctx = ctx };
	for (unsigned int r = 1; r <= rounds && !stopped(cfg); r++) {
		size_t peer = rd_st_schedule_peer(m->sched, (size_t)self, r);
		const char *dst;

		if (peer == RD_ST_NOBODY)
			continue;	/* a round this host sits out */
		dst = m->hosts->v[peer];
		if (!m->nrails) {
			test_pair(&ms, dst, r, -1, -1);
			continue;
		}
		for (size_t li = 0; li < m->nrails && !stopped(cfg); li++)
			for (size_t pi = m->cross ? 0 : li; pi < (m->cross ? m->nrails : li + 1) &&
			     !stopped(cfg); pi++)
				test_pair(&ms, dst, r, (int)li, (int)pi);
	}
	*failed = ms.failed;
	/* Serve the peers still to come, at most one wait after our last round. */
	end = rd_now_ns() + (uint64_t)m->wait_ms * 1000000;
	while (!stopped(cfg) && rd_now_ns() < end && !__atomic_load_n(&s->finished, __ATOMIC_ACQUIRE))
		nap_ms(200);
	s->halt = 1;
	pthread_join(th, NULL);
	rd_rc_spin_yields(false);
	if (s->ret < 0) {
		snprintf(why, why_len, "cannot serve the peers: %s", s->why);
		free(s);
		free(run);
		return -EIO;
	}
	free(s);
	free(run);
	return 0;
}
