/* SPDX-License-Identifier: MIT */
/*
 * rdma-fabric --svg: the plan of the picture (fabpic.c), which the SVG
 * writer (fabsvg.c) draws.  The fabric in tiers counted from the HCAs up
 * (rd_fab_tiers): a row a tier of switches, the highest on top; the tier-1
 * switches (leaves) side by side as columns, each over one box that counts
 * the HCAs cabled to it.  What a check FAILed or WARNed is placed on its
 * own: a host (or a host gone since the baseline) as a strip under its
 * column, a switch as its box, a switch-to-switch link as a line of its own,
 * a fault of the whole fabric in a line under the title.  Each fault is a
 * numbered badge where it is drawn and a line of the list below.
 */
#ifndef RD_FABPIC_H
#define RD_FABPIC_H

#include <stddef.h>

#include "fabric/fabric.h"

/* At most this many hosts drawn alone under a column; the others are counted in one more strip. */
#define RD_FABPIC_MAX_STRIPS 6
/* At most this many faults drawn on one switch box or one link; at most this many lines in the list. */
#define RD_FABPIC_MAX_BADGES 12
#define RD_FABPIC_MAX_ROWS 60
/* At most this many faults of the whole fabric in lines under the title. */
#define RD_FABPIC_MAX_BANNER 20
/* Past this many healthy links between two rows next to each other, they are drawn as one bus. */
#define RD_FABPIC_BUS 1000

enum rd_fabpic_at {
	RD_FABPIC_FABRIC,	/* the whole fabric, or a node the picture cannot place */
	RD_FABPIC_SWITCH,	/* a switch (one of its ports, or a port whose far end is gone) */
	RD_FABPIC_STRIP,	/* a host's strip */
	RD_FABPIC_LINK,		/* a switch-to-switch link */
	RD_FABPIC_HIDDEN,	/* past a cap: counted, not drawn */
};

struct rd_fabpic_fault {
	const struct rd_fab_result *r;
	unsigned int num;	/* 1.. in the report's order */
	enum rd_fabpic_at at;
	size_t where;		/* the box, strip or link it is drawn on */
	double x, y;		/* its badge's centre */
};

/* A switch's box. */
struct rd_fabpic_box {
	int node, row;
	double x, y, w, h;
	bool rotated;		/* the name written upwards (a narrow box) */
	enum rd_fab_status worst;	/* PASS: no fault here */
	unsigned int nbadges;
};

/* A column: a leaf (tier-1 switch) and the HCAs cabled to it. */
struct rd_fabpic_col {
	int box;		/* -1: HCAs cabled to no switch */
	double x, w;
	unsigned int hcas, bad, gone;
	size_t nstrips;		/* drawn, the "more" strip included */
	unsigned int more;	/* bad hosts past RD_FABPIC_MAX_STRIPS */
	int first_ca;		/* for its title: the HCAs, in node order (next_ca chains them) */
};

/* A host drawn alone: a CA of the fabric, or one gone since the baseline. */
struct rd_fabpic_strip {
	size_t col;
	int node;		/* -1: gone */
	uint64_t guid;		/* a gone host's */
	const char *name;	/* the node's name, or the gone one's object */
	int port, sw_port;	/* its port and the switch's, for the label (-1: not known) */
	char label[200];	/* name, ports, and the checks' words */
	enum rd_fab_status worst;
	unsigned int nbadges;
	bool more;		/* the strip that counts the hosts past the cap */
	double x, y, h;
};

/* A switch-to-switch link that a check judged. */
struct rd_fabpic_link {
	int a, pa, b, pb;	/* its ends: box indexes and ports */
	enum rd_fab_status worst;
	unsigned int nbadges;
	double x, y;		/* its badges start here */
};

struct rd_fabpic_row {
	int tier;		/* -1: switches no HCA reaches */
	double y, h;
	size_t nboxes;
};

struct rd_fabpic {
	const struct rd_fab *fab;
	const struct rd_fab_report *rep;
	int *tier, *box_of, *col_of, *next_ca;	/* per node */
	int top;
	struct rd_fabpic_row *rows;		/* the highest tier first; the last is tier 1 */
	size_t n_rows;
	struct rd_fabpic_box *boxes;
	size_t n_boxes;
	struct rd_fabpic_col *cols;
	size_t n_cols;
	struct rd_fabpic_strip *strips;
	size_t n_strips;
	struct rd_fabpic_link *links;
	size_t n_links;
	struct rd_fabpic_fault *faults;
	size_t n_faults, n_listed;	/* all of them; the first n_listed are in the list */
	unsigned int count[RD_FAB_NSTATUS];	/* faults by verdict */
	unsigned int hidden;			/* faults past a cap */
	unsigned int hcas, bad_hcas, gone_hcas, switches;
	unsigned int ca_links, sw_links, sw_links_bad;	/* each link once */
	/* Geometry, in pixels. */
	double width, height, left, content_w;
	double banner_y, hca_y, hca_h, strip_y, legend_y, list_y;
	size_t n_banner;
};

/* Plan the picture of fab with rep's verdicts.  0 or -ENOMEM. */
int rd_fabpic_plan(struct rd_fabpic *p, const struct rd_fab *fab, const struct rd_fab_report *rep);
void rd_fabpic_free(struct rd_fabpic *p);

/* Widths, heights and every badge's place (fabgeom.c), once every fault has its place. */
void rd_fabpic_geometry(struct rd_fabpic *p);
/* qsort_r of box indexes (arg: the plan) by their nodes' names, in natural order. */
int rd_fabpic_by_name(const void *a, const void *b, void *arg);

/* Natural order of names: "leaf9" before "leaf10". */
int rd_fabpic_namecmp(const char *a, const char *b);

/* Words of a result for a short label: its detail up to the first clause, at most max bytes. */
void rd_fabpic_words(const struct rd_fab_result *r, char *buf, size_t len, size_t max);

#endif
