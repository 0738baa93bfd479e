/* SPDX-License-Identifier: MIT */
/*
 * rdma-fleet --fabric: which cable explains a mesh's failures (network
 * tomography).  The fabric comes from rdma-fabric --routes -j (its ports and
 * their peers, and every switch's forwarding table); each mesh pair is placed
 * on it (host names join CA node descriptions "HOST DEV" or node-name-map
 * names), its two routes are walked (the request's and the response's: an RC
 * test needs both ways), and the links are ranked by how well they explain
 * the failed and slow pairs.
 *
 * The ranking (rd_tomo_rank) is greedy with explaining away: the link whose
 * pairs are bad the most often, weighted by the share of the bad pairs it
 * covers (precision x recall), is named, its bad pairs are taken out, and the
 * rest are ranked again.  A link is named only when at least two of its
 * pairs are bad, at least half of its pairs are, and its bad count is
 * beyond chance given how often pairs elsewhere fail (a binomial tail below
 * 1% over the number of links): failures spread at random name nobody.
 * Links crossed by exactly the same pairs cannot be told apart: they are
 * named together.
 */
#ifndef RD_FLEETTOMO_H
#define RD_FLEETTOMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleet.h"

/* One observation: a tested pair, the links its routes cross (sorted, unique). */
struct rd_tomo_obs {
	const uint32_t *links;
	uint32_t nlinks;
	bool bad;
};

struct rd_tomo_suspect {
	uint32_t link;
	uint32_t *same;		/* links crossed by exactly the same pairs */
	size_t nsame;
	size_t through;		/* pairs through it, not explained by an earlier suspect */
	size_t bad;		/* of them bad: what it explains */
	size_t through_all, bad_all;	/* all pairs through it, and the bad ones */
	size_t others, bad_others;	/* pairs not through it, and the bad ones */
	double score;		/* precision x recall when it was named */
	double log10_p;		/* the bad count's binomial tail against the rest's rate */
	size_t *obs;		/* the bad observations it explains, in order */
};

/*
 * Rank the links 0..nlinks-1 against the observations: at most max
 * suspects into *out (malloc'd; free with rd_tomo_suspects_free).  0 or
 * -ENOMEM.  No suspect (*n == 0) when nothing stands out.
 */
int rd_tomo_rank(size_t nlinks, const struct rd_tomo_obs *obs, size_t nobs, size_t max,
		 struct rd_tomo_suspect **out, size_t *n);
void rd_tomo_suspects_free(struct rd_tomo_suspect *s, size_t n);

/* The fabric as rdma-fabric --routes -j describes it. */
struct rd_tomo_fabric;

/*
 * Parse the document (data, len) into *out.  0; -EINVAL with why (one line)
 * when it is not rdma-fabric --routes -j output or breaks its bounds;
 * -ENOMEM.
 */
int rd_tomo_fabric_parse(const char *data, size_t len, struct rd_tomo_fabric **out, char *why,
			 size_t why_len);
void rd_tomo_fabric_free(struct rd_tomo_fabric *fab);
/* CA nodes, switches and links (cables) of the fabric. */
void rd_tomo_fabric_size(const struct rd_tomo_fabric *fab, size_t *cas, size_t *switches,
			 size_t *links);

/* One end of a link. */
struct rd_tomo_end {
	const char *node;	/* its node description (or node-name-map name) */
	uint64_t guid;
	unsigned int port;
	bool ca;
};
void rd_tomo_link_ends(const struct rd_tomo_fabric *fab, uint32_t link, struct rd_tomo_end *a,
		       struct rd_tomo_end *b);
/*
 * "leaf03 port 9 <-> h049 mlx5_0 port 1": a switch end before a CA end, then
 * the lower name (byte order), GUID, port.
 */
void rd_tomo_link_text(const struct rd_tomo_fabric *fab, uint32_t link, char *buf, size_t len);

/*
 * A mesh pair's end on the fabric: the CA named "HOST DEV" (or, for a host
 * with one CA, the host's CA), its port (0: 1).  Without dev, the CA named
 * "HOST prefer_dev", else the host's only CA.  0 with *node and *lid, or
 * -ENOENT with why; *host_known false when no CA has the host's name.
 */
int rd_tomo_end_find(const struct rd_tomo_fabric *fab, const char *host, const char *dev,
		     unsigned int port, const char *prefer_dev, uint32_t *node, unsigned int *oport,
		     uint16_t *lid, bool *host_known, char *why, size_t why_len);
/* The switch a host's first CA (port 1) is cabled to, or NULL. */
const char *rd_tomo_host_switch(const struct rd_tomo_fabric *fab, const char *host);

/*
 * The route from CA node's port to dnode's LID dlid through the forwarding
 * tables: its links appended to links[*n..cap).  0, or -EHOSTUNREACH with
 * why (where it breaks), -ENOSPC past cap.
 */
int rd_tomo_route(const struct rd_tomo_fabric *fab, uint32_t node, unsigned int port, uint16_t dlid,
		  uint32_t dnode, uint32_t *links, size_t *n, size_t cap, char *why, size_t why_len);

/* The mesh placed on the fabric and ranked. */
struct rd_tomo_result {
	size_t pairs;		/* mesh pairs in the input */
	size_t routed;		/* placed and routed both ways: the observations */
	size_t unmapped;	/* an end not found on the fabric */
	size_t unroutable;	/* both ends found, a route broken in the tables */
	size_t unroutable_bad;	/* of them failed or slow */
	size_t failed, slow;	/* among the routed */
	struct rd_strlist unmapped_hosts;	/* hosts not found, once each */
	char *unmapped_why;	/* the first reason, or NULL */
	char *unroutable_why;	/* the first broken route, or NULL */
	size_t *obs_pair;	/* observation -> index into the pairs */
	bool *obs_failed;	/* observation -> failed (else slow, when bad) */
	struct rd_tomo_suspect *sus;
	size_t nsus;
};

/*
 * Place the pairs pv[0..np) on fab and rank its links (at most max
 * suspects).  mlat and mbw are the mesh's medians (rd_fleet_medians): a
 * passed pair at twice the latency or half the bandwidth is slow.  0 or
 * -ENOMEM.
 */
int rd_tomo_run(const struct rd_tomo_fabric *fab, const struct rd_fleet_pair *pv, size_t np,
		double mlat, double mbw, size_t max, struct rd_tomo_result *r);
void rd_tomo_result_free(struct rd_tomo_result *r);

#endif
