// SPDX-License-Identifier: MIT
/* --expect for rdma-gpumap: which NIC, path type and GDR each GPU must get. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputopo.h"

static int parse_line(char *line, unsigned int lineno, struct rd_gpu_expect *x, char *why, size_t whylen)
{
	char *tok[5], *save = NULL;
	size_t n = 0;

	for (char *s = strtok_r(line, " \t", &save); s; s = strtok_r(NULL, " \t", &save)) {
		if (n == RD_ARRAY_SIZE(tok)) {
			snprintf(why, whylen, "line %u: more than four fields (GPU NIC [PATH] [gdr|nogdr])", lineno);
			return -EINVAL;
		}
		tok[n++] = s;
	}
	memset(x, 0, sizeof(*x));
	x->line = lineno;
	x->path = x->gdr = -1;
	if (n < 2) {
		snprintf(why, whylen, "line %u: a GPU and a NIC expected (\"GPU0 mlx5_0 PIX gdr\")", lineno);
		return -EINVAL;
	}
	if (strlen(tok[0]) >= sizeof(x->gpu) || !(strncmp(tok[0], "GPU", 3) == 0 || rd_is_pci_bdf(tok[0]))) {
		snprintf(why, whylen, "line %u: \"%.40s\" is not a GPU (GPU0, or a PCI address)", lineno, tok[0]);
		return -EINVAL;
	}
	rd_strlcpy(x->gpu, tok[0], sizeof(x->gpu));
	{
		char *colon = strchr(tok[1], ':');
		uint64_t port;

		if (colon) {
			*colon = '\0';
			if (rd_parse_uint(colon + 1, &port) || port == 0 || port > 255) {
				snprintf(why, whylen, "line %u: \"%.20s\" is not a port number", lineno, colon + 1);
				return -EINVAL;
			}
			x->port = (unsigned int)port;
		}
		if (!*tok[1] || strlen(tok[1]) >= sizeof(x->dev)) {
			snprintf(why, whylen, "line %u: a NIC name expected", lineno);
			return -EINVAL;
		}
		rd_strlcpy(x->dev, tok[1], sizeof(x->dev));
	}
	for (size_t i = 2; i < n; i++) {
		if (strcmp(tok[i], "gdr") == 0 && x->gdr < 0)
			x->gdr = 1;
		else if (strcmp(tok[i], "nogdr") == 0 && x->gdr < 0)
			x->gdr = 0;
		else if (x->path < 0 && i == 2 && rd_path_parse(tok[i], &x->path) == 0 && tok[i][0] >= 'A' && tok[i][0] <= 'Z')
			continue;
		else {
			snprintf(why, whylen, "line %u: \"%.20s\" is neither a path type (PIX PXB P2C PHB SYS) "
				 "nor gdr/nogdr", lineno, tok[i]);
			return -EINVAL;
		}
	}
	return 0;
}

int rd_gpu_expect_read(const char *path, int timeout_ms, struct rd_gpu_expects *e, char *why, size_t whylen)
{
	struct rd_infile_limits lim = { .max_bytes = 1u << 20, .max_line = 1024, .max_lines = 65536,
					.timeout_ms = timeout_ms };
	struct rd_infile f;
	char *line, fwhy[128];
	size_t len;
	int ret;

	memset(e, 0, sizeof(*e));
	ret = rd_infile_open(&f, path, &lim, fwhy, sizeof(fwhy));
	if (ret) {
		snprintf(why, whylen, "%s", fwhy);
		return ret;
	}
	while ((ret = rd_infile_line(&f, &line, &len, fwhy, sizeof(fwhy))) == 1) {
		struct rd_gpu_expect *v;
		char *p = line + strspn(line, " \t");

		if (len && line[len - 1] == '\r')
			line[len - 1] = '\0';
		if (!*p || *p == '#')
			continue;
		v = realloc(e->v, (e->n + 1) * sizeof(*v));
		if (!v) {
			ret = -ENOMEM;
			snprintf(why, whylen, "out of memory");
			break;
		}
		e->v = v;
		ret = parse_line(p, (unsigned int)f.lineno, &e->v[e->n], why, whylen);
		if (ret)
			break;
		e->n++;
	}
	if (ret < 0 && !why[0])
		snprintf(why, whylen, "%s", fwhy);
	rd_infile_close(&f);
	if (ret == 0 && e->n == 0) {
		snprintf(why, whylen, "no expectations (lines such as \"GPU0 mlx5_0 PIX gdr\")");
		ret = -EINVAL;
	}
	if (ret < 0)
		rd_gpu_expects_free(e);
	return ret < 0 ? ret : 0;
}

size_t rd_gpu_expect_check(const struct rd_gpu_topo *t, struct rd_gpu_expects *e)
{
	size_t missed = 0;

	for (size_t i = 0; i < e->n; i++) {
		struct rd_gpu_expect *x = &e->v[i];
		const struct rd_gpu *g = NULL;
		const struct rd_gpu_net *n;

		for (size_t k = 0; k < t->ngpus; k++)
			if (strcmp(t->gpus[k].name, x->gpu) == 0 || strcmp(t->gpus[k].bdf, x->gpu) == 0)
				g = &t->gpus[k];
		x->met = false;
		n = g && g->net >= 0 ? &t->nets[g->net] : NULL;
		if (!g)
			snprintf(x->detail, sizeof(x->detail), "%s: no such GPU (%zu found)", x->gpu, t->ngpus);
		else if (strcmp(x->dev, "-") == 0 ? n != NULL : !n || strcmp(n->dev, x->dev) != 0 ||
			 (x->port && n->port != x->port)) {
			char got[80] = "none", want[80];

			if (n)
				snprintf(got, sizeof(got), "%s:%u", n->dev, n->port);
			if (x->port)
				snprintf(want, sizeof(want), "%s:%u", x->dev, x->port);
			else
				snprintf(want, sizeof(want), "%s", strcmp(x->dev, "-") == 0 ? "none" : x->dev);
			snprintf(x->detail, sizeof(x->detail), "%s: NIC %s, expected %s", x->gpu, got, want);
		}
		else if (x->path >= 0 && g->path_topo != x->path)
			snprintf(x->detail, sizeof(x->detail), "%s: path %s to %s, expected %s", x->gpu,
				 rd_path_name(g->path_topo), n ? n->dev : "-", rd_path_name(x->path));
		else if (x->gdr >= 0 && g->gdr != (x->gdr == 1))
			snprintf(x->detail, sizeof(x->detail), "%s: GDR %s, expected %s (path %s)", x->gpu,
				 g->gdr ? "yes" : "no", x->gdr ? "yes" : "no", rd_path_name(g->path_topo));
		else
			x->met = true;
		if (x->met)
			snprintf(x->detail, sizeof(x->detail), "%s: as expected", x->gpu);
		else
			missed++;
	}
	return missed;
}

void rd_gpu_expects_free(struct rd_gpu_expects *e)
{
	free(e->v);
	memset(e, 0, sizeof(*e));
}
