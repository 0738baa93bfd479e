// SPDX-License-Identifier: MIT
/*
 * NVML's facts on NCCL's graph, as ncclTopoAddNvLinks and the C2C reader
 * put them there: a GPU's NVLinks to one remote end are one link of
 * count x the per-link bandwidth of its architecture; every NVSwitch is one
 * NVS node; a link to a CPU joins the GPU's own CPU node.  NVML's C2C mode
 * replaces the guess from device ids.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gputopo.h"

/* NCCL's NVLink bandwidth per link (GB/s) by compute capability; SM80's when unknown. */
static double nvl_link_bw(int cc)
{
	return cc >= 100 ? 40.1 : cc >= 90 ? 20.6 : cc == 86 ? 12.0 : cc >= 70 ? 20.0 :
	       cc >= 60 ? 18.0 : 20.0;
}

static int gpu_by_bdf(const struct rd_gpu_topo *t, const char *bdf)
{
	for (size_t g = 0; bdf[0] && g < t->ngpus; g++)
		if (strcmp(t->gpus[g].bdf, bdf) == 0)
			return (int)g;
	return -1;
}

/* NCCL's reading of a link NVML cannot type: another GPU by its address, else an NVSwitch. */
static enum rd_nvl_remote remote_of(const struct rd_gpu_topo *t, const struct rd_nvml_link *k)
{
	if (k->remote != RD_NVL_UNKNOWN)
		return k->remote;
	return gpu_by_bdf(t, k->bdf) >= 0 ? RD_NVL_GPU : RD_NVL_SWITCH;
}

/* The remote end's name in the GPU's list: a GPU's name, "nvswitch", "cpu", or NVML's address. */
static void remote_name(const struct rd_gpu_topo *t, enum rd_nvl_remote r, const char *bdf, char out[24])
{
	int peer = r == RD_NVL_GPU ? gpu_by_bdf(t, bdf) : -1;

	rd_strlcpy(out, peer >= 0 ? t->gpus[peer].name : r == RD_NVL_GPU ? (bdf[0] ? bdf : "gpu") :
		   rd_nvl_remote_name(r), 24);
}

static int add_link(const struct rd_gpu_topo *t, struct rd_gpu *g, const struct rd_nvml_link *k)
{
	enum rd_nvl_remote r = remote_of(t, k);
	char to[24];
	struct rd_gpu_nvl *v;

	remote_name(t, r, k->bdf, to);
	for (size_t i = 0; i < g->nnvl; i++)
		if (g->nvl[i].remote == r && strcmp(g->nvl[i].to, to) == 0) {
			g->nvl[i].links++;
			return 0;
		}
	v = realloc(g->nvl, (g->nnvl + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	g->nvl = v;
	/* GCC 12's analyzer: a heap pointer stored into an element at a variable index (util.h). */
	RD_GCC_LEAK_FP_BEGIN
	g->nvl[g->nnvl] = (struct rd_gpu_nvl){ .remote = r, .links = 1 };
	rd_strlcpy(g->nvl[g->nnvl].to, to, sizeof(g->nvl[g->nnvl].to));
	g->nnvl++;
	return 0;
	RD_GCC_LEAK_FP_END
}

static int nvs_node(struct rd_gpu_topo *t)
{
	for (size_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].type == RD_TN_NVS && strcmp(t->nodes[i].id, "nvswitch") == 0)
			return (int)i;
	return rd_gpu_node_add(t, RD_TN_NVS, "nvswitch", -1);
}

/* One graph link per remote end; a GPU's link to a GPU one way (the peer adds its own). */
static int connect_nvl(struct rd_gpu_topo *t, struct rd_gpu *g, struct rd_gpu_nvl *l)
{
	int peer;

	l->bw = l->links * nvl_link_bw(g->cc);
	switch (l->remote) {
	case RD_NVL_GPU:
		peer = -1;
		for (size_t h = 0; h < t->ngpus; h++)
			if (strcmp(t->gpus[h].name, l->to) == 0)
				peer = t->gpus[h].node;
		return peer < 0 ? 0 : rd_gpu_link_one(&t->nodes[g->node], peer, RD_PATH_NVL, l->bw);
	case RD_NVL_CPU:
		return g->cpu < 0 ? 0 : rd_gpu_connect(t, g->node, g->cpu, RD_PATH_NVL, l->bw);
	default:
		peer = nvs_node(t);
		return peer < 0 ? peer : rd_gpu_connect(t, g->node, peer, RD_PATH_NVL, l->bw);
	}
}

static int apply_gpu(struct rd_gpu_topo *t, struct rd_gpu *g, const struct rd_nvml *nvml,
		     const struct rd_nvml_gpu *ng)
{
	int ret = 0;

	g->cc = ng->cc;
	if (nvml->c2c && ng->c2c >= 0) {
		g->c2c = ng->c2c == 1 && !g->amd;
		g->c2c_assumed = false;
	}
	for (size_t k = 0; k < ng->nlinks && !ret; k++)
		ret = add_link(t, g, &ng->links[k]);
	for (size_t i = 0; i < g->nnvl && !ret; i++)
		ret = connect_nvl(t, g, &g->nvl[i]);
	return ret;
}

static const char *c2c_source(const struct rd_gpu_topo *t, const struct rd_nvml *nvml)
{
	bool any = false;

	for (size_t g = 0; g < t->ngpus; g++) {
		if (t->gpus[g].c2c && t->gpus[g].c2c_assumed)
			return "assumed";
		any |= t->gpus[g].c2c;
	}
	/* A topology file's <c2c> was written by NCCL from NVML. */
	return (nvml && nvml->c2c) || any ? "nvml" : "none";
}

int rd_gpu_nvml_apply(struct rd_gpu_topo *t, const struct rd_nvml *nvml)
{
	int ret = 0;

	for (size_t g = 0; nvml && g < t->ngpus && !ret; g++) {
		const struct rd_nvml_gpu *ng = rd_nvml_gpu(nvml, t->gpus[g].bdf);

		if (ng && t->gpus[g].node >= 0)
			ret = apply_gpu(t, &t->gpus[g], nvml, ng);
	}
	t->nvlink_src = nvml && nvml->nvlink ? "nvml" : "none";
	t->c2c_src = c2c_source(t, nvml);
	if (nvml)
		rd_strlcpy(t->nvml_note, nvml->note, sizeof(t->nvml_note));
	return ret;
}
