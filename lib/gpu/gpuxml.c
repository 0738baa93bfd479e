// SPDX-License-Identifier: MIT
/*
 * An NCCL topology XML (a dump, or the NCCL_TOPO_FILE a cloud ships for its
 * VMs) as the graph: <cpu> nodes, <pci> nodes nested as written (a bridge
 * class is a switch, a 0x03 class a GPU, a 0x02 class or one holding <nic>
 * a NIC), <net> ports inside <nic>, <c2c> under <gpu>.  The file is read
 * under limits; a malformed one is an error with its line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputopo.h"

#define LOC_BW 5000.0
#define XML_MAX_BYTES (8u << 20)
#define XML_MAX_DEPTH 32
#define XML_MAX_ATTRS 32

struct xattr {
	char name[32];
	char val[128];
};

struct xelem {
	char name[16];
	struct xattr a[XML_MAX_ATTRS];
	unsigned int na;
	int node;		/* graph node it made, -1 */
	int gpu;		/* gpu index it made, -1 */
};

struct xparse {
	const char *s, *end;
	unsigned int line;
	char *msg;
	size_t msglen;
};

static const char *attr(const struct xelem *e, const char *name)
{
	for (unsigned int i = 0; i < e->na; i++)
		if (strcmp(e->a[i].name, name) == 0)
			return e->a[i].val;
	return NULL;
}

static int fail(struct xparse *x, const char *what)
{
	snprintf(x->msg, x->msglen, "line %u: %s", x->line, what);
	return -EINVAL;
}

static void skip_ws(struct xparse *x)
{
	while (x->s < x->end && strchr(" \t\r\n", *x->s)) {
		if (*x->s == '\n')
			x->line++;
		x->s++;
	}
}

/* Skip to just past the string lit; -EINVAL at the end of the input. */
static int skip_past(struct xparse *x, const char *lit)
{
	size_t n = strlen(lit);

	while (x->s + n <= x->end) {
		if (memcmp(x->s, lit, n) == 0) {
			x->s += n;
			return 0;
		}
		if (*x->s == '\n')
			x->line++;
		x->s++;
	}
	return fail(x, "unterminated markup");
}

static bool isalnum_ascii(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int read_name(struct xparse *x, char *buf, size_t len)
{
	size_t n = 0;

	while (x->s < x->end && (isalnum_ascii(*x->s) || *x->s == '_' || *x->s == '-' || *x->s == ':')) {
		if (n + 1 >= len)
			return fail(x, "a name too long");
		buf[n++] = *x->s++;
	}
	buf[n] = '\0';
	return n ? 0 : fail(x, "a name expected");
}

/*
 * One tag from '<': an open (returns 1, closing in *selfclose), a close
 * (returns 2, its name in e->name), or nothing of interest (0: a comment,
 * a declaration).
 */
static int read_tag(struct xparse *x, struct xelem *e, bool *selfclose)
{
	x->s++;
	if (x->s < x->end && (*x->s == '?' || *x->s == '!')) {
		if (x->end - x->s >= 3 && memcmp(x->s, "!--", 3) == 0)
			return skip_past(x, "-->");
		return skip_past(x, ">");
	}
	if (x->s < x->end && *x->s == '/') {
		x->s++;
		if (read_name(x, e->name, sizeof(e->name)))
			return -EINVAL;
		skip_ws(x);
		if (x->s >= x->end || *x->s != '>')
			return fail(x, "'>' expected after a closing tag");
		x->s++;
		return 2;
	}
	if (read_name(x, e->name, sizeof(e->name)))
		return -EINVAL;
	e->na = 0;
	for (;;) {
		struct xattr *a;
		char q;
		size_t n = 0;

		skip_ws(x);
		if (x->s >= x->end)
			return fail(x, "unterminated tag");
		if (*x->s == '>') {
			x->s++;
			*selfclose = false;
			return 1;
		}
		if (*x->s == '/') {
			if (x->s + 1 >= x->end || x->s[1] != '>')
				return fail(x, "'/>' expected");
			x->s += 2;
			*selfclose = true;
			return 1;
		}
		if (e->na == XML_MAX_ATTRS)
			return fail(x, "too many attributes");
		a = &e->a[e->na++];
		if (read_name(x, a->name, sizeof(a->name)))
			return -EINVAL;
		skip_ws(x);
		if (x->s >= x->end || *x->s != '=')
			return fail(x, "'=' expected after an attribute name");
		x->s++;
		skip_ws(x);
		if (x->s >= x->end || (*x->s != '"' && *x->s != '\''))
			return fail(x, "a quoted attribute value expected");
		q = *x->s++;
		while (x->s < x->end && *x->s != q) {
			if (*x->s == '\n' || *x->s == '<')
				return fail(x, "unterminated attribute value");
			if (n + 1 >= sizeof(a->val))
				return fail(x, "an attribute value too long");
			a->val[n++] = *x->s++;
		}
		if (x->s >= x->end)
			return fail(x, "unterminated attribute value");
		a->val[n] = '\0';
		x->s++;
	}
}

static unsigned int hexval(const char *s)
{
	uint64_t v;

	return s && rd_parse_hex(s, &v) == 0 && v <= 0xffffffu ? (unsigned int)v : 0;
}

static double xml_bw(const struct xelem *e)
{
	const char *ls = attr(e, "link_speed"), *lw = attr(e, "link_width");
	double gts = ls ? rd_pci_speed_gts(ls) : 0;
	double speed = gts >= 64 ? 480 : gts >= 32 ? 240 : gts >= 16 ? 120 : gts >= 8 ? 60 :
		       gts >= 5 ? 30 : gts >= 2.5 ? 15 : 60;
	unsigned long width = lw ? strtoul(lw, NULL, 10) : 0;

	if (width == 0 || width > 64)
		width = 16;
	return (double)width * speed / 80.0;
}

static int add_gpu(struct rd_gpu_topo *t, const struct xelem *e, const char *busid, int cpu)
{
	struct rd_gpu *v = realloc(t->gpus, (t->ngpus + 1) * sizeof(*v)), *g;

	if (!v)
		return -ENOMEM;
	t->gpus = v;
	g = &t->gpus[t->ngpus];
	memset(g, 0, sizeof(*g));
	rd_strlcpy(g->bdf, busid, sizeof(g->bdf));
	g->pci = rd_pci_find(&t->pci, busid);
	g->vendor = (uint16_t)hexval(attr(e, "vendor"));
	g->device = (uint16_t)hexval(attr(e, "device"));
	/* Left out of the file: NCCL takes them from NVML or sysfs; so do we, from sysfs. */
	if (g->pci >= 0 && t->pci.v[g->pci].ids_known) {
		if (!g->vendor)
			g->vendor = t->pci.v[g->pci].vendor;
		if (!g->device)
			g->device = t->pci.v[g->pci].device;
	}
	g->amd = g->vendor == 0x1002;
	g->net = -1;
	g->pxn_via = -1;
	g->cc = -1;
	g->cpu = cpu;
	g->numa = cpu >= 0 ? t->nodes[cpu].numa : -1;
	return (int)t->ngpus++;
}

/* NIC busid's nets from the RDMA devices; a <net> naming a device adds it when sysfs lacks it. */
static void claim_nets(struct rd_gpu_topo *t, const char *busid, int nic)
{
	for (size_t i = 0; i < t->nnets; i++)
		if (t->nets[i].nic_node < 0 &&
		    (strcmp(t->nets[i].nic_bdf, busid) == 0 || strcmp(t->nets[i].bdf, busid) == 0))
			t->nets[i].nic_node = nic;
}

/* gdr="0" (as NCCL reads it, strtol base 0): the file says the device cannot do GDR; absent: unknown. */
static bool gdr_off(const struct xelem *e)
{
	const char *v = attr(e, "gdr");

	return v && strtol(v, NULL, 0) == 0;
}

static int xml_net(struct rd_gpu_topo *t, const struct xelem *e, int nic)
{
	const char *name = attr(e, "name"), *port = attr(e, "port"), *speed = attr(e, "speed");
	unsigned int pn = port ? (unsigned int)strtoul(port, NULL, 10) : 1;
	struct rd_gpu_net *v, *n;

	if (!name)
		return 0;
	for (size_t i = 0; i < t->nnets; i++)
		if (strcmp(t->nets[i].dev, name) == 0 && (!port || t->nets[i].port == pn)) {
			if (t->nets[i].nic_node < 0)
				t->nets[i].nic_node = nic;
			/* NCCL keeps a file's attribute over what it finds (xmlInitAttrInt). */
			t->nets[i].gdr_unsupported |= gdr_off(e);
			return 0;
		}
	v = realloc(t->nets, (t->nnets + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	t->nets = v;
	n = &t->nets[t->nnets++];
	memset(n, 0, sizeof(*n));
	rd_strlcpy(n->dev, name, sizeof(n->dev));
	n->port = pn ? pn : 1;
	n->node = -1;
	n->nic_node = nic;
	n->pci = -1;
	rd_strlcpy(n->state, "ACTIVE", sizeof(n->state));
	rd_strlcpy(n->link_layer, "from XML", sizeof(n->link_layer));
	n->gbps = speed ? strtod(speed, NULL) / 1000.0 : 0;
	n->active = true;
	n->admitted = !t->conf.ib_hca_set || rd_nccl_hca_match(t->conf.ib_hca, n->dev, n->port);
	n->gdr_unsupported = gdr_off(e);
	return 0;
}

/* What an opened element makes, given its parent's node. */
static int open_elem(struct rd_gpu_topo *t, struct xelem *e, const struct xelem *up, int cpu,
		     struct xparse *x)
{
	const char *busid = attr(e, "busid");
	int parent = up ? up->node : -1, node;
	unsigned int cls = hexval(attr(e, "class"));

	e->node = -1;
	e->gpu = -1;
	if (strcmp(e->name, "cpu") == 0) {
		const char *numa = attr(e, "numaid");
		char id[24];

		if (!numa)
			return fail(x, "<cpu> without numaid");
		snprintf(id, sizeof(id), "numa%s", numa);
		node = rd_gpu_node_add(t, RD_TN_CPU, id, -1);
		if (node < 0)
			return node;
		{
			char *end;
			long v = strtol(numa, &end, 10);

			if (end == numa || *end || v < -1 || v > 4095)
				return fail(x, "<cpu> numaid is not a NUMA node number");
			t->nodes[node].numa = (int)v;
		}
		e->node = node;
		if (!t->host.arch[0] && attr(e, "arch"))
			rd_strlcpy(t->host.arch, strcmp(attr(e, "arch"), "arm64") == 0 ? "aarch64" :
				   attr(e, "arch"), sizeof(t->host.arch));
		if (attr(e, "vendor"))
			rd_strlcpy(t->host.cpu_vendor, attr(e, "vendor"), sizeof(t->host.cpu_vendor));
		if (attr(e, "familyid"))
			t->host.cpu_family = (unsigned int)strtoul(attr(e, "familyid"), NULL, 0);
		if (attr(e, "modelid"))
			t->host.cpu_model = (unsigned int)strtoul(attr(e, "modelid"), NULL, 0);
		return 0;
	}
	if (strcmp(e->name, "pci") == 0) {
		enum rd_tn_type ty = (cls >> 16) == 0x03 || (cls >> 16) == 0x12 ? RD_TN_GPU :
				     (cls >> 16) == 0x02 ? RD_TN_NIC :
				     (cls >> 8) == 0x0680 ? RD_TN_NVS : RD_TN_PCI;

		if (!busid || !rd_is_pci_bdf(busid))
			return fail(x, "<pci> without a valid busid");
		if (parent < 0)
			return fail(x, "<pci> outside a <cpu>");
		node = rd_gpu_node_add(t, ty, busid, rd_pci_find(&t->pci, busid));
		if (node < 0)
			return node;
		t->nodes[node].pci_dev = (uint64_t)hexval(attr(e, "vendor")) << 48 |
					 (uint64_t)hexval(attr(e, "device")) << 32 |
					 (uint64_t)hexval(attr(e, "subsystem_vendor")) << 16 |
					 hexval(attr(e, "subsystem_device"));
		e->node = node;
		if (ty == RD_TN_GPU) {
			e->gpu = add_gpu(t, e, busid, cpu);
			if (e->gpu < 0)
				return e->gpu;
			t->gpus[e->gpu].node = node;
			t->nodes[node].item = e->gpu;
		} else if (ty == RD_TN_NIC) {
			claim_nets(t, busid, node);
		} else if (ty == RD_TN_NVS) {
			t->nvswitches++;
		}
		return rd_gpu_connect(t, node, parent, RD_PATH_PIX, xml_bw(e));
	}
	if (strcmp(e->name, "nic") == 0 && up) {
		/* A <nic> inside a <pci> makes that function a NIC; one under a <cpu> hangs on it. */
		if (strcmp(up->name, "pci") == 0) {
			/* One function is a GPU or a NIC: the graph has one node for it. */
			if (t->nodes[up->node].type == RD_TN_GPU)
				return fail(x, "<nic> inside a GPU's <pci>");
			t->nodes[up->node].type = RD_TN_NIC;
			claim_nets(t, t->nodes[up->node].id, up->node);
			e->node = up->node;
			return 0;
		}
		/* NCCL reads a <nic> only there: elsewhere it has nothing to hang on. */
		if (strcmp(up->name, "cpu") != 0 || parent < 0)
			return fail(x, "<nic> outside a <cpu> or <pci>");
		node = rd_gpu_node_add(t, RD_TN_NIC, "cpu-nic", -1);
		if (node < 0)
			return node;
		e->node = node;
		return rd_gpu_connect(t, node, parent, RD_PATH_PIX, LOC_BW);
	}
	if (strcmp(e->name, "net") == 0 && up && strcmp(up->name, "nic") == 0)
		return xml_net(t, e, up->node);
	if (strcmp(e->name, "gpu") == 0 && up && strcmp(up->name, "pci") == 0) {
		if (t->nodes[up->node].type == RD_TN_NIC)
			return fail(x, "<gpu> inside a NIC's <pci>");
		if (t->nodes[up->node].type != RD_TN_GPU) {
			int g = add_gpu(t, up, t->nodes[up->node].id, cpu);

			if (g < 0)
				return g;
			t->nodes[up->node].type = RD_TN_GPU;
			t->nodes[up->node].item = g;
			t->gpus[g].node = up->node;
		}
		e->node = up->node;
		if (t->nodes[up->node].item >= 0)
			t->gpus[t->nodes[up->node].item].gdr_unsupported |= gdr_off(e);
		return 0;
	}
	if (strcmp(e->name, "c2c") == 0 && up && strcmp(up->name, "gpu") == 0) {
		int g = t->nodes[up->node].item;

		if (g >= 0)
			t->gpus[g].c2c = true;	/* written by NCCL from NVML: not assumed */
		return 0;
	}
	return 0;
}

static int cmp_gpu(const void *a, const void *b)
{
	return strcmp(((const struct rd_gpu *)a)->bdf, ((const struct rd_gpu *)b)->bdf);
}

int rd_gpu_xml_load(struct rd_gpu_topo *t, const char *path, struct rd_warnings *w, char *msg,
		    size_t msglen)
{
	struct rd_infile_limits lim = { .max_bytes = XML_MAX_BYTES, .max_line = XML_MAX_BYTES,
					.max_lines = 1u << 20, .timeout_ms = 10000, .binary = false };
	struct xelem *stack = calloc(XML_MAX_DEPTH, sizeof(*stack));
	struct rd_infile f;
	struct xparse x;
	const char *data;
	size_t len, depth = 0;
	char why[128];
	int ret, cpu = -1;
	bool system = false;

	(void)w;
	if (!stack)
		return -ENOMEM;
	ret = rd_infile_open(&f, path, &lim, why, sizeof(why));
	if (ret) {
		/* Not opened at all: the caller's usage error, not a bad topology. */
		snprintf(msg, msglen, "%s", why);
		free(stack);
		return -EBADF;
	}
	ret = rd_infile_all(&f, &data, &len, why, sizeof(why));
	if (ret) {
		snprintf(msg, msglen, "%s", why);
		rd_infile_close(&f);
		free(stack);
		return -EINVAL;
	}
	x = (struct xparse){ .s = data, .end = data + len, .line = 1, .msg = msg, .msglen = msglen };
	while (x.s < x.end && !ret) {
		struct xelem e;
		bool selfclose = false;
		int k;

		if (*x.s != '<') {
			if (*x.s == '\n')
				x.line++;
			x.s++;
			continue;
		}
		k = read_tag(&x, &e, &selfclose);
		if (k < 0) {
			ret = k;
			break;
		}
		if (k == 2) {
			if (!depth || strcmp(stack[depth - 1].name, e.name) != 0) {
				ret = fail(&x, "a closing tag that closes nothing open");
				break;
			}
			depth--;
			if (strcmp(e.name, "cpu") == 0)
				cpu = -1;
			continue;
		}
		if (k != 1)
			continue;
		if (strcmp(e.name, "system") == 0)
			system = true;
		else if (!system) {
			ret = fail(&x, "not an NCCL topology (no <system>)");
			break;
		}
		ret = open_elem(t, &e, depth ? &stack[depth - 1] : NULL, cpu, &x);
		if (ret)
			break;
		if (strcmp(e.name, "cpu") == 0)
			cpu = e.node;
		if (!selfclose) {
			if (depth == XML_MAX_DEPTH) {
				ret = fail(&x, "nested too deep");
				break;
			}
			stack[depth++] = e;
		}
	}
	if (!ret && depth)
		ret = fail(&x, "the document ends inside an element");
	if (!ret && !system)
		ret = fail(&x, "not an NCCL topology (no <system>)");
	rd_infile_close(&f);
	free(stack);
	if (ret)
		return ret == -ENOMEM ? ret : -EINVAL;
	/* GPUs in PCI bus order, as NVML numbers them. */
	if (t->ngpus > 1)	/* qsort's base must not be NULL, even for no element */
		qsort(t->gpus, t->ngpus, sizeof(*t->gpus), cmp_gpu);
	for (size_t g = 0; g < t->ngpus; g++) {
		t->nodes[t->gpus[g].node].item = (int)g;
		t->gpus[g].index = (unsigned int)g;
		snprintf(t->gpus[g].name, sizeof(t->gpus[g].name), "GPU%zu", g);
	}
	/* NET nodes for the active, admitted ports of the NICs the file holds. */
	for (size_t i = 0, idx = 0; i < t->nnets; i++) {
		struct rd_gpu_net *n = &t->nets[i];
		char id[24];
		int node;

		if (!n->active || !n->admitted || n->nic_node < 0)
			continue;
		snprintf(id, sizeof(id), "net%zu", idx);
		node = rd_gpu_node_add(t, RD_TN_NET, id, -1);
		if (node < 0)
			return node;
		n->node = node;
		n->index = (unsigned int)idx++;
		t->nodes[node].item = (int)i;
		ret = rd_gpu_connect(t, n->nic_node, node, RD_PATH_NET, n->gbps > 0 ? n->gbps / 8.0 : 1.25);
		if (ret)
			return ret;
	}
	return 0;
}
