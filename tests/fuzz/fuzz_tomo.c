// SPDX-License-Identifier: MIT
/*
 * rdma-fleet --fabric's input: the bytes as an rdma-fabric --routes -j
 * document.  When it parses, every CA found through the links is looked up
 * by its name, the routes between the first of them are walked both ways,
 * and the links are ranked against those routes with every other pair bad.
 * Invariants: a link's ends name nodes (NUL-terminated) on ports 1-254; a
 * CA found by its name has a LID; a route's links are links of the fabric
 * and fit the room given; a suspect is a link crossed by bad pairs.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma-fleet/fleettomo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_CAS 12
#define ROOM 140

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd_tomo_fabric *fab;
	char why[400], host[MAX_CAS][64];
	const char *dev[MAX_CAS];
	uint32_t node[MAX_CAS], routes[MAX_CAS * MAX_CAS][ROOM];
	struct rd_tomo_obs obs[MAX_CAS * MAX_CAS];
	unsigned int port[MAX_CAS];
	uint16_t lid[MAX_CAS];
	size_t cas, sws, nlinks, n = 0, nobs = 0;
	struct rd_tomo_suspect *sus;
	size_t nsus;

	if (rd_tomo_fabric_parse((const char *)data, size, &fab, why, sizeof(why))) {
		if (!memchr(why, '\0', sizeof(why)))
			__builtin_trap();
		return 0;
	}
	rd_tomo_fabric_size(fab, &cas, &sws, &nlinks);
	for (uint32_t l = 0; l < nlinks; l++) {
		struct rd_tomo_end e[2];
		char text[600];

		rd_tomo_link_ends(fab, l, &e[0], &e[1]);
		rd_tomo_link_text(fab, l, text, sizeof(text));
		for (int k = 0; k < 2; k++) {
			const char *sp;
			bool known;

			if (!e[k].node || e[k].port < 1 || e[k].port > 254)
				__builtin_trap();
			if (!e[k].ca || n == MAX_CAS || e[k].port != 1)
				continue;
			sp = strchr(e[k].node, ' ');
			(void)snprintf(host[n], sizeof(host[n]), "%.*s",
				       (int)(sp ? (size_t)(sp - e[k].node) : strlen(e[k].node)), e[k].node);
			dev[n] = sp ? sp + 1 : NULL;
			if (!*host[n] || rd_tomo_end_find(fab, host[n], dev[n], 1, NULL, &node[n], &port[n],
							    &lid[n], &known, why, sizeof(why)))
				continue;
			if (!lid[n] || !known)
				__builtin_trap();
			n++;
		}
	}
	for (size_t a = 0; a < n; a++)
		for (size_t b = 0; b < n; b++) {
			size_t nv = 0;

			if (a == b || node[a] == node[b])
				continue;
			if (!rd_tomo_route(fab, node[a], port[a], lid[b], node[b], routes[nobs], &nv, ROOM, why,
					   sizeof(why)) &&
			    !rd_tomo_route(fab, node[b], port[b], lid[a], node[a], routes[nobs], &nv, ROOM, why,
					   sizeof(why))) {
				for (size_t k = 0; k < nv; k++)
					if (routes[nobs][k] >= nlinks)
						__builtin_trap();
				/* the ranking wants them sorted and unique: a small sort */
				for (size_t i = 1; i < nv; i++)
					for (size_t j = i; j > 0 && routes[nobs][j - 1] > routes[nobs][j]; j--) {
						uint32_t t = routes[nobs][j];

						routes[nobs][j] = routes[nobs][j - 1];
						routes[nobs][j - 1] = t;
					}
				{
					size_t u = 0;

					for (size_t i = 0; i < nv; i++)
						if (!u || routes[nobs][i] != routes[nobs][u - 1])
							routes[nobs][u++] = routes[nobs][i];
					nv = u;
				}
				obs[nobs] = (struct rd_tomo_obs){ routes[nobs], (uint32_t)nv, nobs % 2 == 0 };
				nobs++;
			} else if (nv > ROOM) {
				__builtin_trap();
			}
		}
	if (!rd_tomo_rank(nlinks, obs, nobs, 4, &sus, &nsus)) {
		for (size_t i = 0; i < nsus; i++)
			if (sus[i].link >= nlinks || sus[i].bad < 2 || sus[i].bad > sus[i].through)
				__builtin_trap();
		rd_tomo_suspects_free(sus, nsus);
	}
	rd_tomo_fabric_free(fab);
	return 0;
}
