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
 * connect stage cannot know: say it after its diagnosis.
 */
static void mesh_hint(struct rd_st_run *run, const struct rd_st_pair *pair, unsigned int port)
{
	for (unsigned int i = 0; i < run->nstages; i++) {
		struct rd_st_stage *st = &run->stages[i];
		size_t n = strlen(st->detail);

		if (st->ok || strcmp(st->name, run->fail_stage) != 0)
			continue;
		if (!strstr(st->detail, "no rdma-selftest server"))
			break;	/* something answered: the diagnosis says what */
		if (n < sizeof(st->detail))
			snprintf(st->detail + n, sizeof(st->detail) - n,
				 " [mesh: %u attempt%s in %.1f s: is 'rdma-selftest --mesh' running on %s, "
				 "with this host in its list and -P %u?]",
				 pair->attempts, pair->attempts == 1 ? "" : "s", pair->wait_ms / 1000,
				 pair->dst, port);
		break;
	}
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
	rounds = m->ring ? 1 : (unsigned int)(n - 1);
	incoming = rounds;	/* the schedule is symmetric: as many peers test us as we test */
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
	if (pthread_create(&th, NULL, serve, s)) {
		snprintf(why, why_len, "cannot start the server thread");
		free(s);
		free(run);
		return -EAGAIN;
	}
	for (unsigned int r = 1; r <= rounds && !stopped(cfg); r++) {
		struct rd_st_config c = *cfg;
		struct rd_st_pair pair = { .src = m->hosts->v[self], .round = r, .run = run };
		uint64_t t0 = rd_now_ns(), give_up = t0 + (uint64_t)m->wait_ms * 1000000;

		pair.dst = m->hosts->v[((size_t)self + r) % n];
		c.peer = pair.dst;
		for (;;) {
			pair.attempts++;
			pair.wait_ms = (double)(rd_now_ns() - t0) / 1e6;
			rd_st_client(&c, sr, list, 0, h, run);
			/*
			 * Not connected yet (no listener, or it is busy with another
			 * peer): try again until this peer's wait is over.  Name and
			 * route failures are final.
			 */
			if (run->ok || !run->failed || strcmp(run->fail_stage, "connect") != 0 ||
			    rd_now_ns() >= give_up || stopped(cfg) || server_failed(s))
				break;
			nap_ms(500);
		}
		if (!run->ok && run->failed && strcmp(run->fail_stage, "connect") == 0 &&
		    !stopped(cfg))
			mesh_hint(run, &pair, cfg->service_port);
		if (!run->ok)
			(*failed)++;
		if (done)
			done(ctx, &pair);
	}
	/* Serve the peers still to come, at most one wait after our last round. */
	end = rd_now_ns() + (uint64_t)m->wait_ms * 1000000;
	while (!stopped(cfg) && rd_now_ns() < end && !__atomic_load_n(&s->finished, __ATOMIC_ACQUIRE))
		nap_ms(200);
	s->halt = 1;
	pthread_join(th, NULL);
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
