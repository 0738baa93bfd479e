// SPDX-License-Identifier: MIT
/*
 * read-floor: the floor for RDMA READ latency.  The least a program does to
 * time READs over an RC queue pair: one READ of SIZE bytes in flight, its
 * completion busy-polled, a timestamp before each post; nothing else.  It
 * speaks ib_read_lat's TCP exchange (perftest 4.5: version, page and cache
 * line sizes, MTU, the 108-byte key messages), so that each side can face
 * perftest's own program as well as another read-floor.
 *
 * The bench runs it beside ib_read_lat and rdma-selftest --op read: what a
 * bare program does on the same link in the same round tells how much of a
 * difference between the two tools is left for either one's code.
 *
 *   read-floor -s PORT DEV GID_INDEX                 serve one client, exit
 *   read-floor HOST PORT DEV GID_INDEX ITERS [SIZE]  print "median_us min_us avg_us"
 *
 * Port 1 of DEV.  The figure is ib_read_lat's: the time from one post to the
 * next, its median ("t_typical").  Every wait has a limit (30 s for the
 * exchange, 10 s for one READ).  Exit 0 ok, 1 failure, 2 usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define IO_MS 30000
#define READ_NS 10000000000ull
#define KEY_LEN 108

static int serving;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("read-floor: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void wait_fd(int fd, short ev)
{
	struct pollfd p = { .fd = fd, .events = ev };
	int r;

	do
		r = poll(&p, 1, IO_MS);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		die("the peer's exchange %s", r ? strerror(errno) : "timed out");
}

static void put(int fd, const void *b, size_t n)
{
	for (size_t done = 0; done < n;) {
		ssize_t w;

		wait_fd(fd, POLLOUT);
		w = send(fd, (const char *)b + done, n - done, MSG_NOSIGNAL);
		if (w <= 0)
			die("exchange: %s", w ? strerror(errno) : "closed");
		done += (size_t)w;
	}
}

static void get(int fd, void *b, size_t n)
{
	for (size_t done = 0; done < n;) {
		ssize_t r;

		wait_fd(fd, POLLIN);
		r = recv(fd, (char *)b + done, n - done, 0);
		if (r <= 0)
			die("exchange: %s", r ? strerror(errno) : "the peer closed it");
		done += (size_t)r;
	}
}

/* The client speaks first, the server answers: perftest's order. */
static void swap(int fd, const void *mine, void *theirs, size_t n)
{
	if (serving) {
		get(fd, theirs, n);
		put(fd, mine, n);
	} else {
		put(fd, mine, n);
		get(fd, theirs, n);
	}
}

struct keys {
	unsigned int lid, out_reads, qpn, psn, rkey, srqn;
	unsigned long long vaddr;
	uint8_t gid[16];
};

static void keys_swap(int fd, const struct keys *me, struct keys *peer)
{
	char out[KEY_LEN + 1] = "", in[KEY_LEN + 1];
	unsigned int g[16];
	int n = snprintf(out, sizeof(out), "%04x:%04x:%06x:%06x:%08x:%016llx:", me->lid,
			 me->out_reads, me->qpn, me->psn, me->rkey, me->vaddr);

	for (int i = 0; i < 16; i++)
		n += snprintf(out + n, sizeof(out) - (size_t)n, "%02x:", me->gid[i]);
	snprintf(out + n, sizeof(out) - (size_t)n, "%08x:", me->srqn);
	swap(fd, out, in, KEY_LEN);
	in[KEY_LEN] = '\0';
	if (sscanf(in, "%x:%x:%x:%x:%x:%llx:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x",
		   &peer->lid, &peer->out_reads, &peer->qpn, &peer->psn, &peer->rkey, &peer->vaddr,
		   &g[0], &g[1], &g[2], &g[3], &g[4], &g[5], &g[6], &g[7], &g[8], &g[9], &g[10],
		   &g[11], &g[12], &g[13], &g[14], &g[15], &peer->srqn) != 23)
		die("the peer's keys are not ib_read_lat's: '%.40s'", in);
	for (int i = 0; i < 16; i++)
		peer->gid[i] = (uint8_t)g[i];
}

static int connect_to(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai;
	uint64_t end = now_ns() + (uint64_t)IO_MS * 1000000ull;
	int r = getaddrinfo(host, port, &hints, &ai), fd;

	if (r)
		die("%s: %s", host, gai_strerror(r));
	for (;;) {
		fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			die("socket: %s", strerror(errno));
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		close(fd);
		if (now_ns() > end)
			die("%s port %s: %s", host, port, strerror(errno));
		usleep(100000);	/* the server may not listen yet */
	}
	freeaddrinfo(ai);
	return fd;
}

static int accept_one(const char *port)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT };
	int ls = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, off = 0, fd;
	char *end;
	long p = strtol(port, &end, 10);

	if (*end || p <= 0 || p > 65535)
		die("port '%s': not a TCP port", port);
	sa.sin6_port = htons((uint16_t)p);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(ls, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) ||
	    bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 1))
		die("listen on port %s: %s", port, strerror(errno));
	/* No limit here: the bench starts servers before their clients' turn. */
	fd = accept(ls, NULL, NULL);
	if (fd < 0)
		die("accept: %s", strerror(errno));
	close(ls);
	return fd;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static unsigned long number(const char *s, const char *what, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || !*s || v > max) {
		fprintf(stderr, "read-floor: %s '%s': not a number up to %lu\n", what, s, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *devname;
	unsigned long gidx, iters = 0, size = 64;
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_port_attr pa;
	struct ibv_device_attr da;
	int fd, n;

	serving = argc == 5 && strcmp(argv[1], "-s") == 0;
	if (!serving && argc != 6 && argc != 7) {
		fprintf(stderr, "usage: read-floor -s PORT DEV GID_INDEX\n"
				"       read-floor HOST PORT DEV GID_INDEX ITERS [SIZE]\n");
		return 2;
	}
	devname = argv[3];
	gidx = number(argv[4], "GID index", 65535);
	if (!serving) {
		iters = number(argv[5], "ITERS", 100000000);
		if (argc == 7)
			size = number(argv[6], "SIZE", 1u << 20);
		if (!iters || !size) {
			fprintf(stderr, "read-floor: ITERS and SIZE must be at least 1\n");
			return 2;
		}
	}

	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n && !ctx; i++)
		if (strcmp(ibv_get_device_name(list[i]), devname) == 0 &&
		    !(ctx = ibv_open_device(list[i])))
			die("%s: cannot open: %s", devname, strerror(errno));
	if (!ctx)
		die("%s: no such RDMA device", devname);
	if (ibv_query_port(ctx, 1, &pa) || ibv_query_device(ctx, &da))
		die("%s: cannot query port 1", devname);

	fd = serving ? accept_one(argv[2]) : connect_to(argv[1], argv[2]);

	/* perftest's preamble: version string, page size, cache line, MTU */
	{
		char ver[16] = "6.06", pver[16];
		uint32_t pg = htonl(4096), ppg, cl = htonl(64), pcl;
		char mtu[2] = { (char)('0' + pa.active_mtu), 0 }, pmtu[2];

		swap(fd, ver, pver, sizeof(ver));
		swap(fd, &pg, &ppg, sizeof(pg));
		swap(fd, &cl, &pcl, sizeof(cl));
		swap(fd, mtu, pmtu, sizeof(mtu));
		if (pmtu[0] > '0' && pmtu[0] - '0' < (int)pa.active_mtu)
			pa.active_mtu = (enum ibv_mtu)(pmtu[0] - '0');
	}

	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	size_t len = size < 4096 ? 4096 : size;
	void *buf = NULL;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	union ibv_gid gid;
	int rd = da.max_qp_rd_atom > 0 ? da.max_qp_rd_atom : 1;

	if (!pd || posix_memalign(&buf, 4096, len))
		die("out of resources for the buffer");
	memset(buf, 0, len);
	mr = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
				       IBV_ACCESS_REMOTE_WRITE);
	cq = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	if (!mr || !cq)
		die("cannot register the buffer or create the CQ: %s", strerror(errno));
	{
		struct ibv_qp_init_attr qa = {
			.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
		};

		qp = ibv_create_qp(pd, &qa);
	}
	if (!qp)
		die("cannot create the queue pair: %s", strerror(errno));
	if (ibv_query_gid(ctx, 1, (int)gidx, &gid))
		die("%s port 1: no GID %lu", devname, gidx);

	struct keys me = { .lid = pa.lid, .out_reads = (unsigned int)rd, .qpn = qp->qp_num,
			   .psn = (unsigned int)(now_ns() & 0xffffff), .rkey = mr->rkey,
			   .vaddr = (uintptr_t)buf }, peer;

	memcpy(me.gid, gid.raw, 16);
	keys_swap(fd, &me, &peer);	/* the run's */
	keys_swap(fd, &me, &peer);	/* the queue pair's */

	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
		die("queue pair to INIT: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = pa.active_mtu;
	a.dest_qp_num = peer.qpn;
	a.rq_psn = peer.psn;
	a.max_dest_rd_atomic = (uint8_t)rd;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.dlid = (uint16_t)peer.lid;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.sgid_index = (uint8_t)gidx;
	memcpy(a.ah_attr.grh.dgid.raw, peer.gid, 16);
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("queue pair to RTR: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = me.psn;
	a.max_rd_atomic = (uint8_t)(peer.out_reads < (unsigned int)rd ? peer.out_reads : (unsigned int)rd);
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		die("queue pair to RTS: %s", strerror(errno));
	keys_swap(fd, &me, &peer);	/* perftest prints the pair here */
	keys_swap(fd, &me, &peer);	/* both sides are ready to receive */

	if (!serving) {
		struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = (uint32_t)size, .lkey = mr->lkey };
		struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
					  .send_flags = IBV_SEND_SIGNALED,
					  .wr.rdma = { .remote_addr = peer.vaddr, .rkey = peer.rkey } }, *bad;
		uint64_t *ts = calloc(iters + 1, sizeof(*ts)), sum = 0;
		struct ibv_wc wc;

		if (!ts)
			die("out of memory for %lu samples", iters);
		for (unsigned long i = 0; i < iters; i++) {
			unsigned int spins = 0;
			int got;

			ts[i] = now_ns();
			if (ibv_post_send(qp, &wr, &bad))
				die("READ %lu: cannot post: %s", i, strerror(errno));
			while ((got = ibv_poll_cq(cq, 1, &wc)) == 0)
				if (!(++spins & 4095) && now_ns() - ts[i] > READ_NS)
					die("READ %lu: no completion in 10 s", i);
			if (got < 0 || wc.status != IBV_WC_SUCCESS)
				die("READ %lu: %s", i, got < 0 ? "cannot poll the CQ" :
						       ibv_wc_status_str(wc.status));
		}
		ts[iters] = now_ns();
		for (unsigned long i = 0; i < iters; i++) {
			ts[i] = ts[i + 1] - ts[i];
			sum += ts[i];
		}
		qsort(ts, iters, sizeof(*ts), cmp_u64);
		printf("%.3f %.3f %.3f\n", (double)ts[iters / 2] / 1e3, (double)ts[0] / 1e3,
		       (double)sum / (double)iters / 1e3);
		free(ts);
	}
	/* perftest's goodbye: one more key swap, then each side says "done" and closes */
	keys_swap(fd, &me, &peer);
	if (send(fd, "done", 5, MSG_NOSIGNAL) != 5)
		fprintf(stderr, "read-floor: the peer left before the goodbye\n");
	close(fd);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	free(buf);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
