// SPDX-License-Identifier: MIT
/* The graph's two primitives, below both of its builders (sysfs and XML): a node, a link. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gputopo.h"

int rd_gpu_node_add(struct rd_gpu_topo *t, enum rd_tn_type type, const char *id, int pci)
{
	struct rd_tnode *n;

	if (t->nnodes == t->capnodes) {
		size_t ncap = t->capnodes ? t->capnodes * 2 : 64;
		struct rd_tnode *v = realloc(t->nodes, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->nodes = v;
		t->capnodes = ncap;
	}
	n = &t->nodes[t->nnodes];
	memset(n, 0, sizeof(*n));
	n->type = type;
	rd_strlcpy(n->id, id, sizeof(n->id));
	n->pci = pci;
	n->numa = -1;
	n->item = -1;
	return (int)t->nnodes++;
}

int rd_gpu_link_one(struct rd_tnode *n, int rem, int type, double bw)
{
	struct rd_tlink *v = realloc(n->links, (n->nlinks + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	/* GCC 12's analyzer: a heap pointer stored into an element at a variable index (util.h). */
	RD_GCC_LEAK_FP_BEGIN
	n->links = v;
	n->links[n->nlinks++] = (struct rd_tlink){ .type = type, .bw = bw, .rem = rem };
	return 0;
	RD_GCC_LEAK_FP_END
}

int rd_gpu_connect(struct rd_gpu_topo *t, int a, int b, int type, double bw)
{
	int ret = rd_gpu_link_one(&t->nodes[a], b, type, bw);

	return ret ? ret : rd_gpu_link_one(&t->nodes[b], a, type, bw);
}
