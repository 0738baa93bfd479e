// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "device.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

#define IB_CLASS "/sys/class/infiniband"

static const char *const node_type_names[] = {
	[1] = "CA", [2] = "Switch", [3] = "Router", [4] = "RNIC",
	[5] = "usNIC", [6] = "usNIC-UDP", [7] = "unspecified",
};

static const char *const port_state_names[] = {
	[0] = "NOP", [1] = "DOWN", [2] = "INIT", [3] = "ARMED",
	[4] = "ACTIVE", [5] = "ACTIVE_DEFER",
};

static const char *const phys_state_names[] = {
	[1] = "Sleep", [2] = "Polling", [3] = "Disabled",
	[4] = "PortConfigurationTraining", [5] = "LinkUp",
	[6] = "LinkErrorRecovery", [7] = "PhyTest",
};

const char *rd_node_type_name(uint64_t node_type)
{
	return node_type < RD_ARRAY_SIZE(node_type_names) ? node_type_names[node_type] : NULL;
}

const char *rd_port_state_name(uint64_t state)
{
	return state < RD_ARRAY_SIZE(port_state_names) ? port_state_names[state] : NULL;
}

const char *rd_phys_state_name(uint64_t phys_state)
{
	return phys_state < RD_ARRAY_SIZE(phys_state_names) ? phys_state_names[phys_state] : NULL;
}

const char *rd_link_layer_name(enum rd_link_layer ll)
{
	switch (ll) {
	case RD_LL_INFINIBAND:
		return "InfiniBand";
	case RD_LL_ETHERNET:
		return "Ethernet";
	default:
		return NULL;
	}
}

const char *rd_port_transport(const struct rd_device *dev, const struct rd_port *port)
{
	if (dev->known & RD_DEV_NODE_TYPE) {
		switch (dev->node_type) {
		case 4:
			return "iWARP";
		case 5:
		case 6:
			return "usNIC";
		case 7:
			return "unspecified";
		default:
			break;
		}
	}
	if (!port || !(port->known & RD_PORT_LINK_LAYER))
		return NULL;
	return port->link_layer == RD_LL_ETHERNET ? "RoCE" : "InfiniBand";
}

int rd_parse_rate(const char *s, struct rd_rate *rate)
{
	double gbps;
	char *end;
	const char *p;

	memset(rate, 0, sizeof(*rate));
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return -ENODATA;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	/* "<number> Gb/sec", blanks allowed before the unit */
	gbps = strtod(s, &end);
	p = end;
	while (isspace((unsigned char)*p))
		p++;
	if (end == s || strncmp(p, "Gb/sec", 6) != 0 || !(gbps >= 0 && gbps <= 1e6))
		return -EINVAL;
	p += 6;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '(') {
		const char *close = strchr(p, ')');
		char inner[32];
		size_t len;

		if (!close)
			return -EINVAL;
		len = (size_t)(close - p - 1);
		if (len >= sizeof(inner))
			return -EINVAL;
		memcpy(inner, p + 1, len);
		inner[len] = '\0';
		char *sp = strchr(inner, ' ');

		if (sp) {
			*sp = '\0';
			rd_strlcpy(rate->speed, sp + 1, sizeof(rate->speed));
		}
		rd_strlcpy(rate->width, inner, sizeof(rate->width));
		p = close + 1;
		while (isspace((unsigned char)*p))
			p++;
	}
	if (*p)
		return -EINVAL;
	rate->gbps = gbps;
	return 0;
}

int rd_parse_guid(const char *s, uint64_t *guid)
{
	unsigned int g[4];
	char tail;
	int k;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return -ENODATA;
	/* Exactly four groups of 1-4 hex digits. */
	for (const char *p = s; *p && !isspace((unsigned char)*p); p++)
		if (!isxdigit((unsigned char)*p) && *p != ':')
			return -EINVAL;
	/* NOLINTNEXTLINE(cert-err34-c): %4x reads at most 4 hex digits, no overflow */
	k = sscanf(s, "%4x:%4x:%4x:%4x%c", &g[0], &g[1], &g[2], &g[3], &tail);
	if (k != 4 && !(k == 5 && isspace((unsigned char)tail)))
		return -EINVAL;
	*guid = ((uint64_t)g[0] << 48) | ((uint64_t)g[1] << 32) | ((uint64_t)g[2] << 16) | g[3];
	return 0;
}

void rd_format_guid_hex(uint64_t guid, char buf[19])
{
	snprintf(buf, 19, "0x%016" PRIx64, guid);
}

void rd_format_guid(uint64_t guid, char buf[20])
{
	snprintf(buf, 20, "%04x:%04x:%04x:%04x", (unsigned int)(guid >> 48) & 0xffff,
		 (unsigned int)(guid >> 32) & 0xffff, (unsigned int)(guid >> 16) & 0xffff,
		 (unsigned int)guid & 0xffff);
}

int rd_device_names(const struct rd_sysroot *sr, struct rd_strlist *names)
{
	return rd_sys_list(sr, names, IB_CLASS);
}

/* Field readers: on failure leave the field unknown and say why. */

struct field_ctx {
	const struct rd_sysroot *sr;
	struct rd_warnings *w;
	const char *dev;
	unsigned int port;	/* 0 for device attributes */
	/*
	 * The sysfs directory of the object: IB_CLASS "/<device>" or
	 * ".../ports/<n>", the device's name shorter than rd_device.name (a
	 * longer one is refused before).  Not RD_PATH_MAX: this frame sits on
	 * the deepest stack of a scan, and every 4 KiB page of stack a run
	 * touches first is a page fault.
	 */
	char dir[sizeof(IB_CLASS) + sizeof(((struct rd_device *)0)->name) + sizeof("/ports/4294967295")];
};

static void field_warn(const struct field_ctx *fc, const char *file, const char *what)
{
	char where[RD_PATH_MAX];	/* the file read, under --sysroot too */

	rd_sys_resolve(fc->sr, where, sizeof(where), fc->dir);
	if (fc->port)
		rd_warn(fc->w, "%s port %u: %s: %s (%s/%s)", fc->dev, fc->port, file, what,
			where, file);
	else
		rd_warn(fc->w, "%s: %s: %s (%s/%s)", fc->dev, file, what, where, file);
}

/* optional: a missing file is normal (driver-specific attribute) */
static bool read_str_field(const struct field_ctx *fc, const char *file, char *buf, size_t len,
			   bool optional)
{
	int ret = rd_sys_read_str(fc->sr, buf, len, "%s/%s", fc->dir, file);

	if (ret == 0)
		return true;
	buf[0] = '\0';
	if (!(optional && ret == -ENOENT))
		field_warn(fc, file, rd_read_strerror(ret));
	return false;
}

static bool read_num_field(const struct field_ctx *fc, const char *file, uint64_t *v, bool hex)
{
	char buf[64];
	int ret;

	if (!read_str_field(fc, file, buf, sizeof(buf), false))
		return false;
	ret = hex ? rd_parse_hex(buf, v) : rd_parse_u64(buf, v);
	if (ret == -ENODATA) {
		field_warn(fc, file, rd_read_strerror(ret));
		return false;
	}
	if (ret) {
		char what[128];

		snprintf(what, sizeof(what), "%s \"%.40s\"", rd_read_strerror(ret), buf);
		field_warn(fc, file, what);
		return false;
	}
	return true;
}

static bool read_guid_field(const struct field_ctx *fc, const char *file, uint64_t *guid)
{
	char buf[128], what[128];
	int ret;

	if (!read_str_field(fc, file, buf, sizeof(buf), false))
		return false;
	ret = rd_parse_guid(buf, guid);
	if (ret == 0)
		return true;
	snprintf(what, sizeof(what), "%s \"%.40s\"", rd_read_strerror(ret), buf);
	field_warn(fc, file, ret == -ENODATA ? rd_read_strerror(ret) : what);
	return false;
}

/* "4: ACTIVE": the number is authoritative; odd text is worth a warning only. */
static bool read_enum_field(const struct field_ctx *fc, const char *file, uint64_t *v,
			    const char *(*namefn)(uint64_t))
{
	char buf[64], name[48], what[160];
	int ret;

	if (!read_str_field(fc, file, buf, sizeof(buf), false))
		return false;
	ret = rd_parse_enum(buf, v, name, sizeof(name));
	if (ret) {
		snprintf(what, sizeof(what), "%s \"%.40s\"", rd_read_strerror(ret), buf);
		field_warn(fc, file, what);
		return false;
	}
	if (namefn) {
		const char *expect = namefn(*v);

		if (expect && strcasecmp(expect, name) != 0) {
			/* The kernel writes "Phy Test"; compare without spaces. */
			char squeezed[48];
			size_t j = 0;

			for (size_t i = 0; name[i] && j < sizeof(squeezed) - 1; i++)
				if (name[i] != ' ')
					squeezed[j++] = name[i];
			squeezed[j] = '\0';
			if (strcasecmp(expect, squeezed) != 0) {
				snprintf(what, sizeof(what),
					 "text \"%.40s\" does not match code %llu (%s); using the code",
					 name, (unsigned long long)*v, expect);
				field_warn(fc, file, what);
			}
		}
	}
	return true;
}

static void read_port(const struct rd_sysroot *sr, const struct rd_device *dev,
		      struct rd_port *port, struct rd_warnings *w, unsigned int flags)
{
	struct field_ctx fc = { .sr = sr, .w = w, .dev = dev->name, .port = port->num };
	char buf[64];

	snprintf(fc.dir, sizeof(fc.dir), IB_CLASS "/%s/ports/%u", dev->name, port->num);

	if ((flags & RD_SCAN_PORT_STATE_LOGICAL) &&
	    read_enum_field(&fc, "state", &port->state, rd_port_state_name))
		port->known |= RD_PORT_STATE;
	if ((flags & RD_SCAN_PORT_STATE_PHYS) &&
	    read_enum_field(&fc, "phys_state", &port->phys_state, rd_phys_state_name))
		port->known |= RD_PORT_PHYS_STATE;

	/* The kernel fails rate with EINVAL when the speed is not known yet. */
	int ret = -EINVAL;

	if (flags & RD_SCAN_PORT_RATE)
		ret = rd_sys_read_str(sr, port->rate_str, sizeof(port->rate_str), "%s/rate", fc.dir);
	if (ret == 0) {
		ret = rd_parse_rate(port->rate_str, &port->rate);
		if (ret == 0) {
			port->known |= RD_PORT_RATE;
		} else {
			char what[128];

			snprintf(what, sizeof(what), "%s \"%.40s\"", rd_read_strerror(ret),
				 port->rate_str);
			field_warn(&fc, "rate", what);
		}
	} else if (ret != -EINVAL) {
		field_warn(&fc, "rate", rd_read_strerror(ret));
	}

	if (read_str_field(&fc, "link_layer", buf, sizeof(buf), false)) {
		if (strcmp(buf, "InfiniBand") == 0) {
			port->link_layer = RD_LL_INFINIBAND;
			port->known |= RD_PORT_LINK_LAYER;
		} else if (strcmp(buf, "Ethernet") == 0) {
			port->link_layer = RD_LL_ETHERNET;
			port->known |= RD_PORT_LINK_LAYER;
		} else {
			char what[96];

			snprintf(what, sizeof(what), "unknown link layer \"%.40s\"", buf);
			field_warn(&fc, "link_layer", what);
		}
	}
	if (!(flags & RD_SCAN_PORT_LIDS))
		return;
	if (read_num_field(&fc, "lid", &port->lid, true))
		port->known |= RD_PORT_LID;
	if (read_num_field(&fc, "sm_lid", &port->sm_lid, true))
		port->known |= RD_PORT_SM_LID;
	if (read_num_field(&fc, "sm_sl", &port->sm_sl, false))
		port->known |= RD_PORT_SM_SL;
	if (read_num_field(&fc, "lid_mask_count", &port->lid_mask_count, false))
		port->known |= RD_PORT_LMC;
	if (read_num_field(&fc, "cap_mask", &port->cap_mask, true))
		port->known |= RD_PORT_CAP_MASK;
}

/* A switchdev representor ("pf0vf3", "p0") is not the port's own netdev. */
bool rd_netdev_is_representor(const struct rd_sysroot *sr, const char *ibdev, const char *ifname)
{
	char name[64];

	if (rd_sys_read_str(sr, name, sizeof(name),
			    "/sys/class/infiniband/%s/device/net/%s/phys_port_name", ibdev, ifname))
		return false;
	return strstr(name, "vf") || strstr(name, "sf");
}

/*
 * What a device's ports share when they list their netdevs, read once a
 * device: the PCI function's netdevs (device/net) and the dev_port of each,
 * listed when the first port asks (each port takes those of its number;
 * dev_port counts from 0, absent means the function's only port), and the
 * bonding/slaves text of every netdev asked about ("" when it is no bond).
 */
struct fn_netdevs {
	bool listed;
	struct rd_strlist names;
	uint64_t *dev_port;
	struct rd_strlist bonds, slaves;	/* asked, and what each said */
};

static int fn_netdevs_read(const struct rd_sysroot *sr, const struct rd_device *dev,
			   struct fn_netdevs *f)
{
	f->listed = true;
	if (rd_sys_list(sr, &f->names, "/sys/class/infiniband/%s/device/net", dev->name)) {
		rd_strlist_free(&f->names);
		return 0;
	}
	f->dev_port = calloc(f->names.n ? f->names.n : 1, sizeof(*f->dev_port));
	if (!f->dev_port)
		return -ENOMEM;
	for (size_t i = 0; i < f->names.n; i++)
		if (rd_sys_read_u64(sr, &f->dev_port[i], "/sys/class/infiniband/%s/device/net/%s/dev_port",
				    dev->name, f->names.v[i]) < 0)
			f->dev_port[i] = 0;
	return 0;
}

static void fn_netdevs_free(struct fn_netdevs *f)
{
	rd_strlist_free(&f->names);
	free(f->dev_port);
	rd_strlist_free(&f->bonds);
	rd_strlist_free(&f->slaves);
	memset(f, 0, sizeof(*f));
}

/* ifname's bonding/slaves into buf, "" when it is no bond; kept for the device's other ports. */
static void bond_slaves(const struct rd_sysroot *sr, struct fn_netdevs *f, const char *ifname,
			char *buf, size_t len)
{
	for (size_t i = 0; i < f->bonds.n && i < f->slaves.n; i++) {
		if (strcmp(f->bonds.v[i], ifname) == 0) {
			rd_strlcpy(buf, f->slaves.v[i], len);
			return;
		}
	}
	if (rd_sys_read_str(sr, buf, len, "/sys/class/net/%s/bonding/slaves", ifname))
		buf[0] = '\0';
	if (rd_strlist_add(&f->bonds, ifname) || rd_strlist_add(&f->slaves, buf)) {
		/* Out of memory: the next port reads the file again. */
		rd_strlist_free(&f->bonds);
		rd_strlist_free(&f->slaves);
	}
}

static int port_netdevs(const struct rd_sysroot *sr, const struct rd_device *dev,
			const struct rd_port *port, struct fn_netdevs *fn, struct rd_strlist *out)
{
	struct rd_strlist l = { 0 };
	char name[64];
	int ret = 0;

	/* Unused slots and IB ports fail with EINVAL: that is expected, not a warning. */
	if (rd_sys_list(sr, &l, "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs", dev->name,
			port->num) == 0) {
		for (size_t i = 0; i < l.n; i++) {
			if (rd_sys_read_str(sr, name, sizeof(name),
					    "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/%s",
					    dev->name, port->num, l.v[i]) || !name[0])
				continue;
			ret = rd_strlist_add_unique(out, name);
			if (ret)
				goto out;
		}
	}
	rd_strlist_free(&l);

	/*
	 * A RoCE LAG's GIDs name the bond: its slaves are the port's netdevs
	 * too (rdma-devmap reads them the same way, rd_netdev_read).
	 */
	for (size_t i = 0, n = out->n; i < n; i++) {
		char slaves[256];
		const char *m = out->v[i];

		if (strchr(m, '/') || m[0] == '.')
			continue;
		bond_slaves(sr, fn, m, slaves, sizeof(slaves));
		if (!slaves[0])
			continue;
		ret = rd_parse_bond_slaves(slaves, &l);
		for (size_t j = 0; ret == 0 && j < l.n; j++)
			ret = rd_strlist_add_unique(out, l.v[j]);
		rd_strlist_free(&l);
		if (ret)
			return ret;
	}

	if (dev->parent[0]) {
		ret = rd_strlist_add_unique(out, dev->parent);
		if (ret)
			return ret;
	}

	if (!fn->listed) {
		ret = fn_netdevs_read(sr, dev, fn);
		if (ret)
			goto out;
	}
	for (size_t i = 0; i < fn->names.n; i++) {
		if (fn->dev_port[i] + 1 != port->num ||
		    rd_netdev_is_representor(sr, dev->name, fn->names.v[i]))
			continue;
		ret = rd_strlist_add_unique(out, fn->names.v[i]);
		if (ret)
			goto out;
	}

out:
	rd_strlist_free(&l);
	return ret;
}

int rd_port_netdevs_sysfs(const struct rd_sysroot *sr, const struct rd_device *dev,
			  const struct rd_port *port, struct rd_strlist *out)
{
	struct fn_netdevs fn = { 0 };
	int ret = port_netdevs(sr, dev, port, &fn, out);

	fn_netdevs_free(&fn);
	return ret;
}

/* uverbsN -> ib device, read once per scan: pairs of (uverbs name, ibdev). */
struct uverbs_map {
	struct rd_strlist uverbs, ibdevs;
};

static void uverbs_map_read(const struct rd_sysroot *sr, struct uverbs_map *m)
{
	struct rd_strlist l = { 0 };
	char ibdev[64];

	if (rd_sys_list(sr, &l, "/sys/class/infiniband_verbs"))
		return;
	for (size_t i = 0; i < l.n; i++) {
		if (strncmp(l.v[i], "uverbs", 6) != 0)
			continue;
		if (rd_sys_read_str(sr, ibdev, sizeof(ibdev), "/sys/class/infiniband_verbs/%s/ibdev",
				    l.v[i]) == 0 &&
		    rd_strlist_add(&m->uverbs, l.v[i]) == 0 && rd_strlist_add(&m->ibdevs, ibdev) != 0)
			break;
	}
	rd_strlist_free(&l);
}

static void uverbs_map_free(struct uverbs_map *m)
{
	rd_strlist_free(&m->uverbs);
	rd_strlist_free(&m->ibdevs);
}

static void find_uverbs(const struct uverbs_map *m, const char *name, char *out, size_t len)
{
	out[0] = '\0';
	for (size_t i = 0; i < m->ibdevs.n && i < m->uverbs.n; i++) {
		if (strcmp(m->ibdevs.v[i], name) == 0) {
			rd_strlcpy(out, m->uverbs.v[i], len);
			return;
		}
	}
}

/* RD_SCAN_DEV_FN: the function's driver, uverbs node and SR-IOV links. */
static void read_fn(const struct rd_sysroot *sr, const char *dir, struct rd_device *dev,
		    const struct uverbs_map *uv)
{
	char link[64];
	uint64_t nvfs;

	if (rd_sys_link_basename(sr, link, sizeof(link), "%s/device/driver", dir) == 0)
		rd_strlcpy(dev->driver, link, sizeof(dev->driver));
	find_uverbs(uv, dev->name, dev->uverbs, sizeof(dev->uverbs));
	if (rd_sys_link_resolved_name(sr, link, sizeof(link), "%s/device/physfn", dir) == 0 &&
	    rd_is_pci_bdf(link))
		rd_strlcpy(dev->pf_pci, link, sizeof(dev->pf_pci));
	if (rd_sys_read_u64(sr, &nvfs, "%s/device/sriov_numvfs", dir) == 0 && nvfs < 65536)
		dev->num_vfs = (int)nvfs;
}

static int device_read(const struct rd_sysroot *sr, const char *name, struct rd_device *dev,
		       struct rd_warnings *w, const struct uverbs_map *uv, unsigned int flags)
{
	struct field_ctx fc = { .sr = sr, .w = w, .dev = name };
	struct fn_netdevs fn = { 0 };
	struct rd_strlist ports = { 0 };
	char link[64];
	int ret;

	memset(dev, 0, sizeof(*dev));
	if (strlen(name) >= sizeof(dev->name) || strchr(name, '/') || name[0] == '.')
		return -ENODEV;
	rd_strlcpy(dev->name, name, sizeof(dev->name));
	snprintf(fc.dir, sizeof(fc.dir), IB_CLASS "/%s", name);
	if (!rd_sys_exists(sr, "%s/", fc.dir))
		return -ENODEV;

	if (read_enum_field(&fc, "node_type", &dev->node_type, NULL))
		dev->known |= RD_DEV_NODE_TYPE;
	if ((flags & RD_SCAN_DEV_FW) &&
	    read_str_field(&fc, "fw_ver", dev->fw_ver, sizeof(dev->fw_ver), true))
		dev->known |= RD_DEV_FW_VER;
	if (flags & RD_SCAN_DEV_IDS) {
		if (read_guid_field(&fc, "node_guid", &dev->node_guid))
			dev->known |= RD_DEV_NODE_GUID;
		if (read_guid_field(&fc, "sys_image_guid", &dev->sys_image_guid))
			dev->known |= RD_DEV_SYS_IMAGE_GUID;
		if (read_str_field(&fc, "hca_type", dev->hca_type, sizeof(dev->hca_type), true))
			dev->known |= RD_DEV_HCA_TYPE;
		if (read_str_field(&fc, "board_id", dev->board_id, sizeof(dev->board_id), true))
			dev->known |= RD_DEV_BOARD_ID;
		if (read_str_field(&fc, "node_desc", dev->node_desc, sizeof(dev->node_desc), false))
			dev->known |= RD_DEV_NODE_DESC;
	}
	/* Soft devices (rxe, siw) name the netdev they sit on (a port's netdev too). */
	if ((flags & (RD_SCAN_DEV_FN | RD_SCAN_NETDEVS)) &&
	    !read_str_field(&fc, "parent", dev->parent, sizeof(dev->parent), true))
		dev->parent[0] = '\0';

	if (rd_sys_link_resolved_name(sr, link, sizeof(link), "%s/device", fc.dir) == 0) {
		/* The link names the parent even when a copied tree lost it. */
		if (rd_is_pci_bdf(link))
			rd_strlcpy(dev->pci, link, sizeof(dev->pci));
		ret = rd_sys_check_dir(sr, "%s/device", fc.dir);
		if (ret)
			field_warn(&fc, "device", rd_read_strerror(ret));
	}
	dev->num_vfs = -1;
	if (flags & RD_SCAN_DEV_FN)
		read_fn(sr, fc.dir, dev, uv);

	ret = rd_sys_list(sr, &ports, "%s/ports", fc.dir);
	if (ret) {
		field_warn(&fc, "ports", rd_read_strerror(ret));
		ret = 0;
		goto out;
	}
	dev->ports = calloc(ports.n ? ports.n : 1, sizeof(*dev->ports));
	RD_GCC_LEAK_FP_BEGIN	/* dev->ports is freed by rd_device_free */
	if (!dev->ports) {
		ret = -ENOMEM;
		goto out;
	}
	RD_GCC_LEAK_FP_END
	for (size_t i = 0; i < ports.n; i++) {
		uint64_t num;

		if (rd_parse_u64(ports.v[i], &num) || num == 0 || num > 255) {
			char what[96];

			snprintf(what, sizeof(what), "\"%.40s\" is not a port number; skipped",
				 ports.v[i]);
			field_warn(&fc, "ports", what);
			continue;
		}
		struct rd_port *p = &dev->ports[dev->nports++];

		p->num = (unsigned int)num;
		read_port(sr, dev, p, w, flags);
		if (!(flags & RD_SCAN_NETDEVS))
			continue;
		ret = port_netdevs(sr, dev, p, &fn, &p->netdevs);
		if (ret == -ENOMEM)
			goto out;
		for (size_t j = 0; j < p->netdevs.n; j++) {
			ret = rd_strlist_add_unique(&dev->netdevs, p->netdevs.v[j]);
			if (ret)
				goto out;
		}
	}
	ret = 0;
out:
	fn_netdevs_free(&fn);
	rd_strlist_free(&ports);
	if (ret)
		rd_device_free(dev);
	return ret;
}

int rd_device_read_flags(const struct rd_sysroot *sr, const char *name, struct rd_device *dev,
			 struct rd_warnings *w, unsigned int flags)
{
	struct uverbs_map uv = { 0 };
	int ret;

	if (flags & RD_SCAN_DEV_FN)
		uverbs_map_read(sr, &uv);
	ret = device_read(sr, name, dev, w, &uv, flags);
	uverbs_map_free(&uv);
	return ret;
}

int rd_device_read(const struct rd_sysroot *sr, const char *name, struct rd_device *dev,
		   struct rd_warnings *w)
{
	return rd_device_read_flags(sr, name, dev, w, RD_SCAN_ALL);
}

void rd_device_free(struct rd_device *dev)
{
	for (unsigned int i = 0; dev->ports && i < dev->nports; i++) {
		rd_strlist_free(&dev->ports[i].netdevs);
		free(dev->ports[i].verbs);
	}
	free(dev->ports);
	dev->ports = NULL;
	dev->nports = 0;
	rd_strlist_free(&dev->netdevs);
	free(dev->verbs);
	dev->verbs = NULL;
}

struct rd_port *rd_device_port(struct rd_device *dev, unsigned int num)
{
	for (unsigned int i = 0; i < dev->nports; i++)
		if (dev->ports[i].num == num)
			return &dev->ports[i];
	return NULL;
}

int rd_device_scan(const struct rd_sysroot *sr, const struct rd_strlist *filter,
		   struct rd_device_list *list, const char **unknown, struct rd_warnings *w)
{
	return rd_device_scan_flags(sr, filter, list, unknown, w, RD_SCAN_ALL);
}

int rd_device_scan_flags(const struct rd_sysroot *sr, const struct rd_strlist *filter,
			 struct rd_device_list *list, const char **unknown, struct rd_warnings *w,
			 unsigned int flags)
{
	struct rd_strlist names = { 0 };
	struct uverbs_map uv = { 0 };
	int ret;

	memset(list, 0, sizeof(*list));
	if (unknown)
		*unknown = NULL;
	ret = rd_device_names(sr, &names);
	list->class_ret = ret;
	if (ret == -ENOENT)
		ret = 0;	/* no class directory: no devices */
	if (ret)
		goto out;
	if (filter && filter->n) {
		for (size_t i = 0; i < filter->n; i++) {
			if (!rd_strlist_has(&names, filter->v[i])) {
				if (unknown)
					*unknown = filter->v[i];
				ret = -ENODEV;
				goto out;
			}
		}
	}
	list->v = calloc(names.n ? names.n : 1, sizeof(*list->v));
	if (!list->v) {
		ret = -ENOMEM;
		goto out;
	}
	if (flags & RD_SCAN_DEV_FN)
		uverbs_map_read(sr, &uv);
	for (size_t i = 0; i < names.n; i++) {
		if (filter && filter->n && !rd_strlist_has(filter, names.v[i]))
			continue;
		ret = device_read(sr, names.v[i], &list->v[list->n], w, &uv, flags);
		if (ret == -ENODEV) {
			/* Listed but unreadable (dangling link, vanished): say so, go on. */
			size_t len = strlen(names.v[i]);
			int why = rd_sys_check_dir(sr, IB_CLASS "/%s", names.v[i]);
			char class[RD_PATH_MAX];

			rd_sys_resolve(sr, class, sizeof(class), IB_CLASS);
			if (len >= sizeof(list->v->name))
				rd_warn(w, "%.64s...: listed in %s but cannot be read: "
					"name of %zu characters (at most %zu); skipped",
					names.v[i], class, len, sizeof(list->v->name) - 1);
			else
				rd_warn(w, "%s: listed in %s but cannot be read: %s; skipped",
					names.v[i], class, why ? rd_read_strerror(why) : "vanished");
			ret = rd_strlist_add(&list->unreadable, names.v[i]);
			if (ret)
				goto out;
			continue;
		}
		if (ret)
			goto out;
		list->n++;
	}
	list->names = names;	/* kept: the node's devices, listed once */
	memset(&names, 0, sizeof(names));
	list->scanned = true;
out:
	uverbs_map_free(&uv);
	rd_strlist_free(&names);
	if (ret)
		rd_device_list_free(list);
	return ret;
}

void rd_device_list_free(struct rd_device_list *list)
{
	for (unsigned int i = 0; list->v && i < list->n; i++)
		rd_device_free(&list->v[i]);
	free(list->v);
	list->v = NULL;
	list->n = 0;
	rd_strlist_free(&list->names);
	rd_strlist_free(&list->unreadable);
	list->scanned = false;
}
