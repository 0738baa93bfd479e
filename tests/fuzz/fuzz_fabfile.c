// SPDX-License-Identifier: MIT
/*
 * rdma-fabric's file inputs: the bytes as a node name map applied to a small
 * fabric, as an --expect-rate word, and as a saved fabric (--load: read under
 * limits, every record checked, the model built from them).  Invariants:
 * a name, once mapped, is NUL-terminated within its field; a rate that parses
 * has a known width and speed; a loaded fabric's links point inside it, both
 * ways.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fabric/fabric.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_links(const struct rd_fab *fab)
{
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *n = &fab->nodes[i];

		if (!memchr(n->name, '\0', sizeof(n->name)) || !memchr(n->desc, '\0', sizeof(n->desc)))
			__builtin_trap();
		for (int p = 0; p <= n->nports; p++) {
			const struct rd_fab_port *pt = &n->ports[p];

			if (pt->peer_node < 0)
				continue;
			if ((size_t)pt->peer_node >= fab->n_nodes || pt->peer_port < 0 ||
			    pt->peer_port > fab->nodes[pt->peer_node].nports)
				__builtin_trap();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd_fab_port ports[3] = { { 0 } };
	struct rd_fab_node nodes[2] = { { 0 } };
	struct rd_fab fab = { 0 }, loaded;
	struct rd_warnings warnings = { 0 };
	unsigned int lanes, mbps;
	char path[64], why[256], word[32];
	int fd;

	fd = memfd_create("fuzz-fabfile", 0);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	nodes[0].guid = 0x200000;
	nodes[1].guid = 0x100006;
	nodes[0].ports = ports;
	nodes[1].ports = ports + 1;
	nodes[1].nports = 1;
	fab.nodes = nodes;
	fab.n_nodes = 2;
	(void)rd_fab_name_map(&fab, path, 100, &warnings, why, sizeof(why));
	rd_warnings_free(&warnings);
	check_links(&fab);
	memcpy(word, data, size < sizeof(word) - 1 ? size : sizeof(word) - 1);
	word[size < sizeof(word) - 1 ? size : sizeof(word) - 1] = '\0';
	if (rd_fab_parse_rate(word, &lanes, &mbps) == 0 &&
	    ((lanes && !rd_fab_width_lanes((uint8_t)(lanes == 4 ? 2 : lanes == 1 ? 1 : lanes == 2 ? 16 :
							  lanes == 8 ? 4 : 8))) ||
	     (mbps && strcmp(rd_fab_lane_name(mbps), "?") == 0)))
		__builtin_trap();
	if (rd_fab_load(&loaded, path, 100, why, sizeof(why)) == 0) {
		check_links(&loaded);
		/* Forwarding tables as they come: every check, and a route from each node, bounded. */
		if (loaded.have_routes) {
			struct rd_fab_check_opts o = { 0 };
			struct rd_fab_report r = { 0 };

			rd_fab_run_checks(&loaded, &o, &r);
			rd_fab_report_free(&r);
			for (size_t i = 0; i < loaded.n_nodes && i < 64; i++) {
				struct rd_fab_route rt;
				uint16_t lid = loaded.nodes[(i * 7) % loaded.n_nodes].lid;

				if (rd_fab_route(&loaded, (int)i, loaded.nodes[i].nports ? 1 : 0, lid, &rt) == 0 &&
				    (rt.n == 0 || rt.n > RD_FAB_MAX_HOPS + 1))
					__builtin_trap();
			}
		}
		rd_fab_free(&loaded);
	}
	close(fd);
	rd_run_reset();	/* each memfd was one of the run's inputs: not kept for ever */
	return 0;
}
