// SPDX-License-Identifier: MIT
/*
 * The pci and gpu layers (issue #43): the ACS walk over a function's config
 * space, NCCL's names, settings and release rules, and NCCL's path model on
 * small PCI trees built in a scratch sysroot (a switch, two switch levels,
 * root ports of one NUMA node, two NUMA nodes, a Broadcom Gen5 switch).
 */
#include "unit.h"

#include "gpu/gputopo.h"

/* ---- a scratch sysroot of PCI functions ---- */

static void put_bytes(const char *rel, const void *buf, size_t len)
{
	char path[512];
	FILE *f;

	put(rel, "");	/* the directories */
	snprintf(path, sizeof(path), "%s/%s", scratch, rel);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

static void fn_file(const char *dir, const char *file, const char *fmt, unsigned int v)
{
	char rel[240], val[32];

	assert_true(snprintf(rel, sizeof(rel), "sys/devices/%s/%s", dir, file) < (int)sizeof(rel));
	snprintf(val, sizeof(val), fmt, v);
	put(rel, val);
}

/*
 * A PCI function at sys/devices/DIR (DIR ends with its BDF) with its
 * identity, NUMA node and a Gen5 x16 link, listed in /sys/bus/pci/devices
 * by a relative link as sysfs makes it.
 */
static void pci_fn(const char *dir, unsigned int ven, unsigned int dev, unsigned int cls, int numa,
		   unsigned int subven, unsigned int subdev)
{
	const char *bdf = strrchr(dir, '/') + 1;
	char target[240], link[600], rel[240];

	fn_file(dir, "vendor", "0x%04x\n", ven);
	fn_file(dir, "device", "0x%04x\n", dev);
	fn_file(dir, "class", "0x%06x\n", cls);
	fn_file(dir, "subsystem_vendor", "0x%04x\n", subven);
	fn_file(dir, "subsystem_device", "0x%04x\n", subdev);
	fn_file(dir, "numa_node", "%d\n", (unsigned int)numa);
	assert_true(snprintf(rel, sizeof(rel), "sys/devices/%s/max_link_speed", dir) < (int)sizeof(rel));
	put(rel, "32.0 GT/s PCIe\n");
	assert_true(snprintf(rel, sizeof(rel), "sys/devices/%s/current_link_speed", dir) < (int)sizeof(rel));
	put(rel, "32.0 GT/s PCIe\n");
	fn_file(dir, "max_link_width", "%u\n", 16);
	fn_file(dir, "current_link_width", "%u\n", 16);
	mkdirs("sys/bus/pci/devices");
	assert_true(snprintf(target, sizeof(target), "../../../devices/%s", dir) < (int)sizeof(target));
	assert_true(snprintf(link, sizeof(link), "%s/sys/bus/pci/devices/%s", scratch, bdf) < (int)sizeof(link));
	assert_int_equal(symlink(target, link), 0);
}

static void bridge(const char *dir, int numa)
{
	pci_fn(dir, 0x8086, 0x352a, 0x060400, numa, 0x8086, 0x0000);
}

static void gpu_fn(const char *dir, int numa)
{
	pci_fn(dir, 0x10de, 0x2330, 0x030200, numa, 0x10de, 0x16c1);
}

static void nic_fn(const char *dir, int numa)
{
	pci_fn(dir, 0x15b3, 0x1021, 0x020700, numa, 0x15b3, 0x0041);
}

/* ---- the ACS walk ---- */

static void le32_put(uint8_t *cfg, unsigned int off, uint32_t v)
{
	cfg[off] = (uint8_t)v;
	cfg[off + 1] = (uint8_t)(v >> 8);
	cfg[off + 2] = (uint8_t)(v >> 16);
	cfg[off + 3] = (uint8_t)(v >> 24);
}

/* An extended capability header: id, version 1, next. */
static uint32_t ext_cap(unsigned int id, unsigned int next)
{
	return (uint32_t)id | 1u << 16 | (uint32_t)next << 20;
}

#define FN_DIR "pci0000:00/0000:00:01.0"

/* One bridge whose config is the len bytes of cfg: its facts, and how many warnings they gave. */
static size_t acs_of(const uint8_t *cfg, size_t len, struct rd_pci_fn *out)
{
	struct rd_sysroot sr;
	struct rd_pci_tree t;
	struct rd_warnings w = { 0 };
	size_t nw;
	int i;

	scratch_make();
	bridge(FN_DIR, 0);
	put_bytes("sys/devices/" FN_DIR "/config", cfg, len);
	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);
	assert_int_equal(rd_pci_tree_read(&sr, &t, &w), 0);
	i = rd_pci_find(&t, "0000:00:01.0");
	assert_true(i >= 0);
	rd_pci_facts(&t, (size_t)i, &w);
	*out = t.v[i];
	out->path = NULL;
	nw = w.msgs.n;
	rd_pci_tree_free(&t);
	rd_warnings_free(&w);
	scratch_remove();
	return nw;
}

static void test_acs_walk(void **state)
{
	static uint8_t cfg[4096];
	struct rd_pci_fn f;

	(void)state;
	/* AER at 0x100 -> DSN at 0x140 -> ACS at 0x150 (cap 0x5f, ctrl RR CR SV UF). */
	memset(cfg, 0, sizeof(cfg));
	le32_put(cfg, 0x100, ext_cap(0x0001, 0x140));
	le32_put(cfg, 0x140, ext_cap(0x0003, 0x150));
	le32_put(cfg, 0x150, ext_cap(0x000d, 0));
	le32_put(cfg, 0x154, 0x001d005f);
	assert_int_equal(acs_of(cfg, sizeof(cfg), &f), 0);
	assert_int_equal(f.acs, RD_CAP_PRESENT);
	assert_int_equal(f.acs_cap, 0x005f);
	assert_int_equal(f.acs_ctrl, 0x001d);
	assert_int_equal(f.config_len, 4096);
	assert_true(f.link_known);
	assert_int_equal(f.max_width, 16);
	assert_true(f.max_gts == 32.0);
	assert_int_equal(f.numa, 0);

	/* No ACS: the list ends (next 0) without it. */
	le32_put(cfg, 0x140, ext_cap(0x0003, 0));
	assert_int_equal(acs_of(cfg, sizeof(cfg), &f), 0);
	assert_int_equal(f.acs, RD_CAP_ABSENT);

	/* ACS as the last thing the space can hold (0xff8 .. 0xfff). */
	le32_put(cfg, 0x140, ext_cap(0x0003, 0xff8));
	le32_put(cfg, 0xff8, ext_cap(0x000d, 0));
	le32_put(cfg, 0xffc, 0x00040007);
	assert_int_equal(acs_of(cfg, sizeof(cfg), &f), 0);
	assert_int_equal(f.acs, RD_CAP_PRESENT);
	assert_int_equal(f.acs_ctrl, RD_ACS_RR);

	/* A loop (next pointing back): the walk ends, no ACS, one warning. */
	le32_put(cfg, 0x140, ext_cap(0x0003, 0x100));
	assert_int_equal(acs_of(cfg, sizeof(cfg), &f), 1);
	assert_int_equal(f.acs, RD_CAP_ABSENT);
	/* Pointing at itself. */
	le32_put(cfg, 0x140, ext_cap(0x0003, 0x140));
	assert_int_equal(acs_of(cfg, sizeof(cfg), &f), 1);
	assert_int_equal(f.acs, RD_CAP_ABSENT);

	/* A misaligned next. */
	le32_put(cfg, 0x140, ext_cap(0x0003, 0x152));
	assert_int_equal(acs_of(cfg, sizeof(cfg), &f), 1);
	assert_int_equal(f.acs, RD_CAP_ABSENT);

	/* A next past what a header and the two registers need (0xffc + 8 > 4096). */
	le32_put(cfg, 0x140, ext_cap(0x0003, 0xffc));
	le32_put(cfg, 0xffc, ext_cap(0x000d, 0));
	assert_int_equal(acs_of(cfg, sizeof(cfg), &f), 1);
	assert_int_equal(f.acs, RD_CAP_ABSENT);

	/* 0xffffffff at 0x100 (a function that is gone) and 0: no list, no warning. */
	le32_put(cfg, 0x100, 0xffffffffu);
	assert_int_equal(acs_of(cfg, sizeof(cfg), &f), 0);
	assert_int_equal(f.acs, RD_CAP_ABSENT);
	le32_put(cfg, 0x100, 0);
	assert_int_equal(acs_of(cfg, sizeof(cfg), &f), 0);
	assert_int_equal(f.acs, RD_CAP_ABSENT);

	/* Truncated: 64 bytes (not root) and 256 (no extended space) are unread, silently. */
	le32_put(cfg, 0x100, ext_cap(0x000d, 0));
	assert_int_equal(acs_of(cfg, 64, &f), 0);
	assert_int_equal(f.acs, RD_CAP_UNREAD);
	assert_int_equal(f.config_len, 64);
	assert_int_equal(acs_of(cfg, 256, &f), 0);
	assert_int_equal(f.acs, RD_CAP_UNREAD);
	assert_int_equal(f.config_len, 256);
	assert_int_equal(acs_of(cfg, 4095, &f), 0);
	assert_int_equal(f.acs, RD_CAP_UNREAD);
}

/* ATS on the same walk: found before or after ACS, enabled by bit 15 of its control. */
static void test_ats_walk(void **state)
{
	static uint8_t cfg[4096];
	struct rd_pci_fn f;

	(void)state;
	/* AER -> ATS (enabled) -> ACS: both found, the walk goes on past the first. */
	memset(cfg, 0, sizeof(cfg));
	le32_put(cfg, 0x100, ext_cap(0x0001, 0x140));
	le32_put(cfg, 0x140, ext_cap(0x000f, 0x150));
	le32_put(cfg, 0x144, 0x80000020);
	le32_put(cfg, 0x150, ext_cap(0x000d, 0));
	le32_put(cfg, 0x154, 0x001d005f);
	assert_int_equal(acs_of(cfg, sizeof(cfg), &f), 0);
	assert_int_equal(f.ats, RD_CAP_PRESENT);
	assert_int_equal(f.ats_ctrl, 0x8000);
	assert_int_equal(f.acs, RD_CAP_PRESENT);
	assert_int_equal(f.acs_ctrl, 0x001d);

	/* ACS first, then ATS present but not enabled. */
	le32_put(cfg, 0x140, ext_cap(0x000d, 0x150));
	le32_put(cfg, 0x144, 0x001d005f);
	le32_put(cfg, 0x150, ext_cap(0x000f, 0));
	le32_put(cfg, 0x154, 0x00000020);
	assert_int_equal(acs_of(cfg, sizeof(cfg), &f), 0);
	assert_int_equal(f.acs, RD_CAP_PRESENT);
	assert_int_equal(f.ats, RD_CAP_PRESENT);
	assert_int_equal(f.ats_ctrl & 0x8000, 0);

	/* No ATS on the list; a loop after ACS warns and keeps what was found. */
	le32_put(cfg, 0x150, ext_cap(0x0003, 0));
	assert_int_equal(acs_of(cfg, sizeof(cfg), &f), 0);
	assert_int_equal(f.ats, RD_CAP_ABSENT);
	le32_put(cfg, 0x150, ext_cap(0x0003, 0x100));
	assert_int_equal(acs_of(cfg, sizeof(cfg), &f), 1);
	assert_int_equal(f.acs, RD_CAP_PRESENT);
	assert_int_equal(f.ats, RD_CAP_ABSENT);

	/* The 64 bytes a reader without root gets: both unread. */
	assert_int_equal(acs_of(cfg, 64, &f), 0);
	assert_int_equal(f.ats, RD_CAP_UNREAD);
	assert_int_equal(f.acs, RD_CAP_UNREAD);
}

static void test_acs_bits(void **state)
{
	char buf[40];

	(void)state;
	assert_string_equal(rd_acs_bits(0, buf), "-");
	assert_string_equal(rd_acs_bits(0x001d, buf), "SV RR CR UF");
	assert_string_equal(rd_acs_bits(0x007f, buf), "SV TB RR CR UF EC DT");
	assert_string_equal(rd_acs_bits(0xff80, buf), "-");
}

static void test_speed_gts(void **state)
{
	(void)state;
	assert_true(rd_pci_speed_gts("16.0 GT/s PCIe") == 16.0);
	assert_true(rd_pci_speed_gts("8 GT/s") == 8.0);
	assert_true(rd_pci_speed_gts("2.5 GT/s") == 2.5);
	assert_true(rd_pci_speed_gts("2.5 GT/s PCIe") == 2.5);
	assert_true(rd_pci_speed_gts("64.0 GT/s PCIe") == 64.0);
	assert_true(rd_pci_speed_gts("Unknown") == 0);
	assert_true(rd_pci_speed_gts("") == 0);
	assert_true(rd_pci_speed_gts("16.0") == 0);
	assert_true(rd_pci_speed_gts("16.0 Gb/s") == 0);
	assert_true(rd_pci_speed_gts("0 GT/s") == 0);
	assert_true(rd_pci_speed_gts("-8 GT/s") == 0);
	assert_true(rd_pci_speed_gts("1e9 GT/s") == 0);
}

/* ---- NCCL's names and settings ---- */

/* BAR n of a GPU whose resource file is text (NULL: no file): the call's result and size. */
static int bar_of(const char *text, unsigned int n, uint64_t *size)
{
	struct rd_sysroot sr;
	struct rd_pci_tree t;
	struct rd_warnings w = { 0 };
	int i, ret;

	scratch_make();
	gpu_fn("pci0000:00/0000:00:01.0", 0);
	if (text)
		put("sys/devices/pci0000:00/0000:00:01.0/resource", text);
	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);
	assert_int_equal(rd_pci_tree_read(&sr, &t, &w), 0);
	i = rd_pci_find(&t, "0000:00:01.0");
	assert_true(i >= 0);
	*size = 0;
	ret = rd_pci_bar_size(&t, (size_t)i, n, size);
	rd_pci_tree_free(&t);
	rd_warnings_free(&w);
	scratch_remove();
	return ret;
}

/* The kernel's resource file: "start end flags" per resource, BARs 0-5 first. */
static void test_bar_size(void **state)
{
	const char *h100 =
		"0x00000000a8000000 0x00000000a8ffffff 0x0000000000040200\n"
		"0x0000200000000000 0x0000201fffffffff 0x000000000014220c\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		"0x0000202000000000 0x0000202001ffffff 0x000000000014220c\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		"0x0000000000000000 0x0000000000000000 0x0000000000000000\n";
	uint64_t size;

	(void)state;
	assert_int_equal(bar_of(h100, 1, &size), 0);
	assert_true(size == 128ull << 30);
	assert_int_equal(bar_of(h100, 0, &size), 0);
	assert_true(size == 16ull << 20);
	assert_int_equal(bar_of(h100, 3, &size), 0);
	assert_true(size == 32ull << 20);
	/* An unused BAR is all zero. */
	assert_int_equal(bar_of(h100, 2, &size), -ENODATA);
	/* No file; a file cut before the BAR; text that is not the kernel's. */
	assert_int_equal(bar_of(NULL, 1, &size), -ENOENT);
	assert_int_equal(bar_of("0x00000000a8000000 0x00000000a8ffffff 0x0000000000040200\n", 1, &size),
			 -EINVAL);
	assert_int_equal(bar_of("garbage\ngarbage\n", 1, &size), -EINVAL);
	assert_int_equal(bar_of("0x0 0x0 0x0\n0x2000 0x1fff 0x0\n", 1, &size), -EINVAL);
	assert_int_equal(bar_of("0x0 0x0 0x0\n0x2000\n", 1, &size), -EINVAL);
	assert_int_equal(bar_of("", 1, &size), -EINVAL);
}

static void test_path_parse(void **state)
{
	static const char *const names[] = { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB",
					     "P2C", "PXN", "PHB", "SYS" };
	/* NCCL's levelsOldToNew: 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 and up SYS. */
	static const int old[] = { RD_PATH_LOC, RD_PATH_PIX, RD_PATH_PXB, RD_PATH_PHB, RD_PATH_SYS,
				   RD_PATH_SYS, RD_PATH_SYS, RD_PATH_SYS, RD_PATH_SYS, RD_PATH_SYS };
	int p;

	(void)state;
	for (int i = 0; i < 10; i++) {
		char num[16];

		assert_int_equal(rd_path_parse(names[i], &p), 0);
		assert_int_equal(p, i);
		assert_string_equal(rd_path_name(i), names[i]);
		snprintf(num, sizeof(num), "%d", i);
		assert_int_equal(rd_path_parse(num, &p), 0);
		assert_int_equal(p, old[i]);
	}
	assert_int_equal(rd_path_parse("99", &p), 0);
	assert_int_equal(p, RD_PATH_SYS);
	/* NET and DIS are not levels NCCL takes; names are case-sensitive as in NCCL. */
	assert_int_equal(rd_path_parse("NET", &p), -EINVAL);
	assert_int_equal(rd_path_parse("DIS", &p), -EINVAL);
	assert_int_equal(rd_path_parse("pxb", &p), -EINVAL);
	assert_int_equal(rd_path_parse("", &p), -EINVAL);
	assert_int_equal(rd_path_parse("-1", &p), -EINVAL);
	assert_int_equal(rd_path_parse("PXB ", &p), -EINVAL);
	assert_string_equal(rd_path_name(RD_PATH_NET), "NET");
	assert_string_equal(rd_path_name(RD_PATH_DIS), "DIS");
	assert_string_equal(rd_path_name(12), "?");
	assert_string_equal(rd_path_name(-1), "?");
}

static void test_hca_match(void **state)
{
	(void)state;
	/* Prefixes. */
	assert_true(rd_nccl_hca_match("mlx5", "mlx5_0", 1));
	assert_true(rd_nccl_hca_match("mlx5_1", "mlx5_10", 1));
	assert_false(rd_nccl_hca_match("mlx5_1", "mlx5_0", 1));
	assert_true(rd_nccl_hca_match("mlx5_0,mlx5_1", "mlx5_1", 2));
	assert_false(rd_nccl_hca_match("mlx5_0,mlx5_1", "mlx5_2", 1));
	assert_false(rd_nccl_hca_match("mlx5_0_extra", "mlx5_0", 1));
	/* '=': exact names. */
	assert_true(rd_nccl_hca_match("=mlx5_1", "mlx5_1", 1));
	assert_false(rd_nccl_hca_match("=mlx5_1", "mlx5_10", 1));
	assert_false(rd_nccl_hca_match("=mlx5", "mlx5_0", 1));
	/* '^': everything but. */
	assert_false(rd_nccl_hca_match("^mlx5_0", "mlx5_0", 1));
	assert_true(rd_nccl_hca_match("^mlx5_0", "mlx5_1", 1));
	assert_false(rd_nccl_hca_match("^mlx5_1", "mlx5_10", 1));
	assert_true(rd_nccl_hca_match("^=mlx5_1", "mlx5_10", 1));
	assert_false(rd_nccl_hca_match("^=mlx5_1", "mlx5_1", 1));
	/* "=^" is an exact name that begins with '^' (NCCL strips '^' first). */
	assert_false(rd_nccl_hca_match("=^mlx5_0", "mlx5_1", 1));
	/* ':port'; an empty port is any port; a third field (rail) is ignored. */
	assert_true(rd_nccl_hca_match("mlx5_0:1", "mlx5_0", 1));
	assert_false(rd_nccl_hca_match("mlx5_0:1", "mlx5_0", 2));
	assert_true(rd_nccl_hca_match("mlx5_0:", "mlx5_0", 2));
	assert_true(rd_nccl_hca_match("mlx5_0:2:7", "mlx5_0", 2));
	assert_false(rd_nccl_hca_match("mlx5_0:2:7", "mlx5_0", 7));
	assert_false(rd_nccl_hca_match("=mlx5_0:2", "mlx5_0", 1));
	assert_true(rd_nccl_hca_match("^mlx5_0:1", "mlx5_0", 2));
	assert_false(rd_nccl_hca_match("^mlx5_0:1", "mlx5_0", 1));
	/* atoi: a port that is not a number is port 0, which no port is. */
	assert_false(rd_nccl_hca_match("mlx5_0:x", "mlx5_0", 1));
	/* Empty entries are skipped (strtok). */
	assert_true(rd_nccl_hca_match(",,mlx5_0,,", "mlx5_0", 1));
	assert_false(rd_nccl_hca_match(",,mlx5_0,,", "mlx5_1", 1));
	/* An empty list admits every device; after '^' it excludes every one (true ^ true). */
	assert_true(rd_nccl_hca_match("", "mlx5_0", 1));
	assert_true(rd_nccl_hca_match("=", "mlx5_0", 1));
	assert_true(rd_nccl_hca_match(",", "mlx5_0", 1));
	assert_false(rd_nccl_hca_match("^", "mlx5_0", 1));
	assert_false(rd_nccl_hca_match("^=", "mlx5_0", 1));
	assert_false(rd_nccl_hca_match("^,", "mlx5_0", 1));
}

/*
 * parseStringList() keeps an entry only when its name (before ':') is not
 * empty: ":1" is no entry, and a list of only such entries is empty.
 */
static void test_hca_match_empty_names(void **state)
{
	(void)state;
	assert_true(rd_nccl_hca_match(":1", "mlx5_0", 1));
	assert_true(rd_nccl_hca_match(":1,:2", "mlx5_0", 3));
	assert_false(rd_nccl_hca_match("^:1", "mlx5_0", 1));
	/* Beside a real entry the empty one changes nothing. */
	assert_true(rd_nccl_hca_match(":1,mlx5_1", "mlx5_1", 1));
	assert_false(rd_nccl_hca_match(":1,mlx5_1", "mlx5_0", 1));
	assert_true(rd_nccl_hca_match("^:1,mlx5_1", "mlx5_0", 1));
}

static void test_version_parse(void **state)
{
	unsigned int v = 0;

	(void)state;
	assert_int_equal(rd_nccl_version_parse("2.27", &v), 0);
	assert_int_equal(v, 227);
	assert_int_equal(rd_nccl_version_parse("2.27.3", &v), 0);
	assert_int_equal(v, 227);
	assert_int_equal(rd_nccl_version_parse("2.12", &v), 0);
	assert_int_equal(v, RD_NCCL_OLDEST);
	assert_int_equal(rd_nccl_version_parse("2.30", &v), 0);
	assert_int_equal(v, RD_NCCL_NEWEST);
	/* Well formed, but outside what this knows. */
	assert_int_equal(rd_nccl_version_parse("2.5", &v), -ERANGE);
	assert_int_equal(rd_nccl_version_parse("2.11", &v), -ERANGE);
	assert_int_equal(rd_nccl_version_parse("2.31", &v), -ERANGE);
	/* Other forms. */
	assert_int_equal(rd_nccl_version_parse("3", &v), -EINVAL);
	assert_int_equal(rd_nccl_version_parse("3.0", &v), -EINVAL);
	assert_int_equal(rd_nccl_version_parse("2", &v), -EINVAL);
	assert_int_equal(rd_nccl_version_parse("2.", &v), -EINVAL);
	assert_int_equal(rd_nccl_version_parse("junk", &v), -EINVAL);
	assert_int_equal(rd_nccl_version_parse("2.27-1", &v), -EINVAL);
	assert_int_equal(rd_nccl_version_parse("2.27.3.1", &v), -EINVAL);
	assert_int_equal(rd_nccl_version_parse("v2.27", &v), -EINVAL);
	assert_int_equal(rd_nccl_version_parse("2.100", &v), -EINVAL);
	assert_int_equal(rd_nccl_version_parse("", &v), -EINVAL);
}

static void test_gdr_defaults(void **state)
{
	struct rd_nccl_conf c;

	(void)state;
	rd_nccl_conf_init(&c);
	assert_int_equal(c.version, RD_NCCL_NEWEST);
	/* No C2C rule before 2.26; opt-in in 2.26; on from 2.27, with the level at P2C. */
	c.version = 225;
	assert_false(rd_nccl_gdr_c2c(&c));
	assert_int_equal(rd_nccl_gdr_level(&c), RD_PATH_PXB);
	c.version = 226;
	assert_false(rd_nccl_gdr_c2c(&c));
	assert_int_equal(rd_nccl_gdr_level(&c), RD_PATH_PXB);
	c.version = 227;
	assert_true(rd_nccl_gdr_c2c(&c));
	assert_int_equal(rd_nccl_gdr_level(&c), RD_PATH_P2C);
	c.version = 230;
	assert_true(rd_nccl_gdr_c2c(&c));
	assert_int_equal(rd_nccl_gdr_level(&c), RD_PATH_P2C);
	/* NCCL_NET_GDR_C2C. */
	c.gdr_c2c = 0;
	assert_false(rd_nccl_gdr_c2c(&c));
	assert_int_equal(rd_nccl_gdr_level(&c), RD_PATH_PXB);
	c.gdr_c2c = 1;
	c.version = 226;
	assert_true(rd_nccl_gdr_c2c(&c));
	assert_int_equal(rd_nccl_gdr_level(&c), RD_PATH_PXB);
	c.version = 225;
	assert_false(rd_nccl_gdr_c2c(&c));
	/* NCCL_NET_GDR_LEVEL wins over every default. */
	c.gdr_level = RD_PATH_PHB;
	assert_int_equal(rd_nccl_gdr_level(&c), RD_PATH_PHB);
	c.version = 230;
	c.gdr_c2c = -1;
	assert_int_equal(rd_nccl_gdr_level(&c), RD_PATH_PHB);
	/* dma-buf from 2.13, VF merging from 2.18. */
	c.version = 212;
	assert_false(rd_nccl_dmabuf(&c));
	assert_false(rd_nccl_merge_vfs(&c));
	c.version = 218;
	assert_true(rd_nccl_dmabuf(&c));
	assert_true(rd_nccl_merge_vfs(&c));
	c.dmabuf = 0;
	assert_false(rd_nccl_dmabuf(&c));
}

static void test_conf_set(void **state)
{
	struct rd_nccl_conf c;
	char msg[160];

	(void)state;
	rd_nccl_conf_init(&c);
	assert_int_equal(rd_nccl_conf_set(&c, "NCCL_NET_GDR_LEVEL", "PHB", "option", msg, sizeof(msg)), 0);
	assert_int_equal(c.gdr_level, RD_PATH_PHB);
	assert_int_equal(rd_nccl_conf_set(&c, "NCCL_NET_GDR_LEVEL", "2", "option", msg, sizeof(msg)), 0);
	assert_int_equal(c.gdr_level, RD_PATH_PXB);
	assert_int_equal(rd_nccl_conf_set(&c, "NCCL_NET_GDR_LEVEL", "near", "option", msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "NCCL_NET_GDR_LEVEL"));
	assert_int_equal(rd_nccl_conf_set(&c, "NCCL_NET_GDR_C2C", "2", "option", msg, sizeof(msg)), -EINVAL);
	assert_int_equal(rd_nccl_conf_set(&c, "NCCL_IB_HCA", "^mlx5_0", "option", msg, sizeof(msg)), 0);
	assert_true(c.ib_hca_set);
	assert_int_equal(rd_nccl_conf_set(&c, "NCCL_TOPO_FILE", "", "option", msg, sizeof(msg)), -EINVAL);
	assert_int_equal(rd_nccl_conf_set(&c, "NCCL_ALGO", "Ring", "option", msg, sizeof(msg)), -EINVAL);
}

/* ---- NCCL's path model on small trees ---- */

/* One RDMA device with one active 400 Gb/s InfiniBand port. */
struct one_nic {
	struct rd_device dev;
	struct rd_port port;
	struct rd_device_list list;
};

static void one_nic(struct one_nic *n, const char *name, const char *bdf)
{
	memset(n, 0, sizeof(*n));
	rd_strlcpy(n->dev.name, name, sizeof(n->dev.name));
	rd_strlcpy(n->dev.pci, bdf, sizeof(n->dev.pci));
	n->port.num = 1;
	n->port.known = RD_PORT_STATE | RD_PORT_LINK_LAYER | RD_PORT_RATE;
	n->port.state = 4;
	n->port.link_layer = RD_LL_INFINIBAND;
	n->port.rate.gbps = 400;
	n->dev.ports = &n->port;
	n->dev.nports = 1;
	n->list.v = &n->dev;
	n->list.n = 1;
}

/* Build NCCL's view of the scratch tree (peermem loaded) with one NIC at nic_bdf. */
static void build(struct rd_gpu_topo *t, const char *nic_bdf)
{
	static struct rd_sysroot sr;
	static struct one_nic nic;
	struct rd_nccl_conf conf;
	struct rd_warnings w = { 0 };
	char msg[200];

	put("sys/module/nvidia_peermem/version", "1.0\n");
	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);
	one_nic(&nic, "mlx5_0", nic_bdf);
	rd_nccl_conf_init(&conf);
	assert_int_equal(rd_gpu_topo_build(&sr, &nic.list, &conf, NULL, t, &w, msg, sizeof(msg)), 0);
	rd_warnings_free(&w);
	assert_int_equal(t->ngpus, 1);
	assert_int_equal(t->nnets, 1);
	assert_string_equal(t->backend, "peermem");
}

/* The chain between the GPU and the NIC, as "bdf bdf ...". */
static void chain_str(const struct rd_gpu_topo *t, const char *a, const char *b, char *out, size_t len)
{
	int chain[16];
	size_t n = rd_gpu_pci_chain(t, rd_pci_find(&t->pci, a), rd_pci_find(&t->pci, b), chain, 16);

	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "", t->pci.v[chain[i]].bdf);
}

/* Root port -> switch (up 01:00.0, down 02:00.0 and 02:01.0) -> GPU 03:00.0 and NIC 04:00.0. */
static void switched_pair(void)
{
	bridge("pci0000:00/0000:00:01.0", 0);
	bridge("pci0000:00/0000:00:01.0/0000:01:00.0", 0);
	bridge("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0", 0);
	bridge("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0", 0);
	gpu_fn("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0", 0);
	nic_fn("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0", 0);
}

static void test_path_pix(void **state)
{
	struct rd_gpu_topo t;
	char chain[200];

	(void)state;
	scratch_make();
	switched_pair();
	build(&t, "0000:04:00.0");
	assert_int_equal(t.gpus[0].net, 0);
	assert_int_equal(t.gpus[0].path_topo, RD_PATH_PIX);
	assert_int_equal(t.gpus[0].path, RD_PATH_PIX);
	assert_true(t.gpus[0].gdr);
	assert_true(t.gpus[0].bw == 48.0);	/* Gen5 x16: 16 * 240 / 80 GB/s; the port's 50 is more */
	assert_int_equal(t.gpus[0].numa, 0);
	/* The switch is one node, named by its upstream port. */
	assert_int_equal(t.pci.v[rd_pci_find(&t.pci, "0000:03:00.0")].depth, 3);
	chain_str(&t, "0000:03:00.0", "0000:04:00.0", chain, sizeof(chain));
	assert_string_equal(chain, "0000:02:00.0 0000:01:00.0 0000:02:01.0");
	assert_string_equal(rd_gpu_smi_name(&t, t.gpus[0].node, t.nets[0].nic_node, t.gpus[0].path_topo),
			    "PIX");
	assert_int_equal(rd_pci_common(&t.pci, rd_pci_find(&t.pci, "0000:03:00.0"),
				       rd_pci_find(&t.pci, "0000:04:00.0")),
			 rd_pci_find(&t.pci, "0000:01:00.0"));
	rd_gpu_topo_free(&t);
	scratch_remove();
}

/* How a virtual machine's tree shows NCCL the topology (rd_gpu_vm_view). */
static void test_vm_view(void **state)
{
	static const char hv[] = "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
				 "flags\t\t: fpu vme hypervisor lahf_lm\n";
	struct rd_gpu_topo t;

	(void)state;
	/* Every device straight on the host bridge, no NUMA node: flat (an i440fx-style bus). */
	scratch_make();
	gpu_fn("pci0000:00/0000:00:05.0", -1);
	nic_fn("pci0000:00/0000:00:06.0", -1);
	build(&t, "0000:00:06.0");
	assert_int_equal(t.gpus[0].path_topo, RD_PATH_PHB);
	assert_int_equal(rd_gpu_vm_view(&t), RD_VM_FLAT);
	rd_gpu_topo_free(&t);
	scratch_remove();

	/* One root port each (q35): not flat; with the hypervisor flag, a hidden tree. */
	for (int flag = 0; flag < 2; flag++) {
		scratch_make();
		if (flag)
			put("proc/cpuinfo", hv);
		bridge("pci0000:00/0000:00:02.0", -1);
		bridge("pci0000:00/0000:00:03.0", -1);
		gpu_fn("pci0000:00/0000:00:02.0/0000:01:00.0", -1);
		nic_fn("pci0000:00/0000:00:03.0/0000:02:00.0", -1);
		build(&t, "0000:02:00.0");
		assert_int_equal(t.gpus[0].path_topo, RD_PATH_PHB);
		assert_int_equal(t.host.hypervisor, flag);
		assert_int_equal(rd_gpu_vm_view(&t), flag ? RD_VM_HIDDEN : RD_VM_SHOWN);
		rd_gpu_topo_free(&t);
		scratch_remove();
	}

	/* A guest that shows its switch (GPU and NIC PIX): NCCL reads it as it is. */
	scratch_make();
	put("proc/cpuinfo", hv);
	switched_pair();
	build(&t, "0000:04:00.0");
	assert_true(t.host.hypervisor);
	assert_int_equal(rd_gpu_vm_view(&t), RD_VM_SHOWN);
	rd_gpu_topo_free(&t);
	scratch_remove();
}

static void test_path_pxb(void **state)
{
	struct rd_gpu_topo t;
	char chain[200];

	(void)state;
	scratch_make();
	/* The GPU behind a second switch (03:00.0) below the first one's port 02:00.0. */
	bridge("pci0000:00/0000:00:01.0", 0);
	bridge("pci0000:00/0000:00:01.0/0000:01:00.0", 0);
	bridge("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0", 0);
	bridge("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0", 0);
	bridge("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0", 0);
	bridge("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/0000:04:00.0", 0);
	gpu_fn("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/0000:04:00.0/0000:05:00.0", 0);
	nic_fn("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:06:00.0", 0);
	build(&t, "0000:06:00.0");
	assert_int_equal(t.gpus[0].net, 0);
	assert_int_equal(t.gpus[0].path_topo, RD_PATH_PXB);
	assert_true(t.gpus[0].gdr);	/* PXB <= P2C */
	assert_true(t.gpus[0].bw == 48.0);
	chain_str(&t, "0000:05:00.0", "0000:06:00.0", chain, sizeof(chain));
	assert_string_equal(chain, "0000:04:00.0 0000:03:00.0 0000:02:00.0 0000:01:00.0 0000:02:01.0");
	assert_string_equal(rd_gpu_smi_name(&t, t.gpus[0].node, t.nets[0].nic_node, t.gpus[0].path_topo),
			    "PXB");
	rd_gpu_topo_free(&t);
	scratch_remove();
}

static void test_path_phb(void **state)
{
	struct rd_gpu_topo t;
	char chain[200];

	(void)state;
	/* GPU and NIC on two root ports of one host bridge: through the CPU. */
	scratch_make();
	bridge("pci0000:00/0000:00:01.0", 0);
	bridge("pci0000:00/0000:00:02.0", 0);
	gpu_fn("pci0000:00/0000:00:01.0/0000:01:00.0", 0);
	nic_fn("pci0000:00/0000:00:02.0/0000:02:00.0", 0);
	build(&t, "0000:02:00.0");
	assert_int_equal(t.gpus[0].path_topo, RD_PATH_PHB);
	assert_int_equal(t.gpus[0].path, RD_PATH_PHB);
	assert_false(t.gpus[0].gdr);	/* PHB > P2C */
	assert_true(t.gpus[0].bw == 48.0);
	chain_str(&t, "0000:01:00.0", "0000:02:00.0", chain, sizeof(chain));
	assert_string_equal(chain, "0000:00:01.0 0000:00:02.0");
	assert_string_equal(rd_gpu_smi_name(&t, t.gpus[0].node, t.nets[0].nic_node, t.gpus[0].path_topo),
			    "PHB");
	rd_gpu_topo_free(&t);
	scratch_remove();

	/* Two host bridges of one NUMA node: one CPU node, still PHB (nvidia-smi: NODE). */
	scratch_make();
	bridge("pci0000:00/0000:00:01.0", 0);
	bridge("pci0000:40/0000:40:01.0", 0);
	gpu_fn("pci0000:00/0000:00:01.0/0000:01:00.0", 0);
	nic_fn("pci0000:40/0000:40:01.0/0000:41:00.0", 0);
	build(&t, "0000:41:00.0");
	assert_int_equal(t.gpus[0].path_topo, RD_PATH_PHB);
	assert_string_equal(rd_gpu_smi_name(&t, t.gpus[0].node, t.nets[0].nic_node, t.gpus[0].path_topo),
			    "NODE");
	chain_str(&t, "0000:01:00.0", "0000:41:00.0", chain, sizeof(chain));
	assert_string_equal(chain, "0000:00:01.0 0000:40:01.0");
	rd_gpu_topo_free(&t);
	scratch_remove();
}

static void test_path_sys(void **state)
{
	struct rd_gpu_topo t;

	(void)state;
	scratch_make();
	bridge("pci0000:00/0000:00:01.0", 0);
	bridge("pci0000:80/0000:80:01.0", 1);
	gpu_fn("pci0000:00/0000:00:01.0/0000:01:00.0", 0);
	nic_fn("pci0000:80/0000:80:01.0/0000:81:00.0", 1);
	build(&t, "0000:81:00.0");
	assert_int_equal(t.gpus[0].net, 0);
	assert_int_equal(t.gpus[0].path_topo, RD_PATH_SYS);
	assert_false(t.gpus[0].gdr);
	assert_int_equal(t.gpus[0].numa, 0);
	assert_string_equal(rd_gpu_smi_name(&t, t.gpus[0].node, t.nets[0].nic_node, t.gpus[0].path_topo),
			    "SYS");
	rd_gpu_topo_free(&t);
	scratch_remove();
}

/* A Broadcom switch: upstream port subsystem 1000:0000, a second level below it 1000:1000. */
static void bcm_switch(const char *dir, unsigned int level, unsigned int dev)
{
	pci_fn(dir, 0x1000, dev, 0x060400, 0, 0x1000, level * 0x1000);
}

static void test_path_bcm(void **state)
{
	struct rd_gpu_topo t;

	(void)state;
	for (int gen5 = 1; gen5 >= 0; gen5--) {
		/* Gen5 c030 is flattened; the same shape of another switch (c010) is not. */
		unsigned int dev = gen5 ? 0xc030 : 0xc010;
		char chain[300];

		scratch_make();
		bridge("pci0000:00/0000:00:01.0", 0);
		bcm_switch("pci0000:00/0000:00:01.0/0000:01:00.0", 0, dev);
		bcm_switch("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0", 0, dev);
		bcm_switch("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0", 0, dev);
		bcm_switch("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0", 1, dev);
		bcm_switch("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/0000:04:00.0", 1, dev);
		bcm_switch("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:05:00.0", 1, dev);
		bcm_switch("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:05:00.0/0000:06:00.0", 1, dev);
		gpu_fn("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/0000:04:00.0/0000:07:00.0", 0);
		nic_fn("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:05:00.0/0000:06:00.0/0000:08:00.0", 0);
		build(&t, "0000:08:00.0");
		assert_int_equal(t.gpus[0].net, 0);
		assert_int_equal(t.gpus[0].path_topo, gen5 ? RD_PATH_PIX : RD_PATH_PXB);
		assert_true(t.gpus[0].gdr);
		/* The bridges are what they are: nvidia-smi counts them all. */
		chain_str(&t, "0000:07:00.0", "0000:08:00.0", chain, sizeof(chain));
		assert_string_equal(chain, "0000:04:00.0 0000:03:00.0 0000:02:00.0 0000:01:00.0 "
				    "0000:02:01.0 0000:05:00.0 0000:06:00.0");
		rd_gpu_topo_free(&t);
		scratch_remove();
	}
}

/* ---- an NCCL topology XML ---- */

/* Build from the XML text (an empty node otherwise): the result, msg says why. */
static int build_xml(struct rd_gpu_topo *t, const char *xml, char *msg, size_t len)
{
	struct rd_device_list none = { 0 };
	struct rd_sysroot sr;
	struct rd_nccl_conf conf;
	struct rd_warnings w = { 0 };
	char path[300];
	int ret;

	put("topo.xml", xml);
	snprintf(path, sizeof(path), "%s/topo.xml", scratch);
	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);
	rd_nccl_conf_init(&conf);
	ret = rd_gpu_topo_build(&sr, &none, &conf, path, t, &w, msg, len);
	rd_warnings_free(&w);
	return ret;
}

/* A <nic> with no <cpu> or <pci> above it was hung on node -1 (found by fuzz_gpuxml). */
static void test_xml_nic_outside_cpu(void **state)
{
	struct rd_gpu_topo t;
	char msg[200];

	(void)state;
	scratch_make();
	assert_int_equal(build_xml(&t, "<system version=\"1\">\n  <nic>\n    <net name=\"mlx5_0\" dev=\"0\"/>\n"
				   "  </nic>\n</system>\n", msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "line 2: <nic> outside a <cpu> or <pci>");
	rd_gpu_topo_free(&t);
	/* Under a <gpu> it has no place either. */
	assert_int_equal(build_xml(&t, "<system version=\"1\"><cpu numaid=\"0\">"
				   "<pci busid=\"0000:01:00.0\" class=\"0x030200\"><gpu dev=\"0\"><nic/></gpu></pci>"
				   "</cpu></system>", msg, sizeof(msg)), -EINVAL);
	rd_gpu_topo_free(&t);
	/* On a CPU it hangs on the CPU: PHB from a GPU of that CPU. */
	assert_int_equal(build_xml(&t, "<system version=\"1\"><cpu numaid=\"0\">"
				   "<pci busid=\"0000:01:00.0\" class=\"0x030200\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\"/>"
				   "<nic><net name=\"mlx5_0\" dev=\"0\" speed=\"400000\" port=\"1\"/></nic>"
				   "</cpu></system>", msg, sizeof(msg)), 0);
	assert_int_equal(t.ngpus, 1);
	assert_int_equal(t.nnets, 1);
	assert_int_equal(t.gpus[0].net, 0);
	assert_int_equal(t.gpus[0].path_topo, RD_PATH_PHB);
	assert_true(t.gpus[0].bw == 48.0);
	rd_gpu_topo_free(&t);
	scratch_remove();
}

/* No GPU at all: nothing to sort (qsort's base was NULL: UBSan in unit-san). */
static void test_xml_no_gpu(void **state)
{
	struct rd_gpu_topo t;
	char msg[200];

	(void)state;
	scratch_make();
	assert_int_equal(build_xml(&t, "<system version=\"1\"><cpu numaid=\"0\">"
				   "<nic><net name=\"mlx5_0\" dev=\"0\"/></nic></cpu></system>",
				   msg, sizeof(msg)), 0);
	assert_int_equal(t.ngpus, 0);
	assert_int_equal(t.nnets, 1);
	rd_gpu_topo_free(&t);
	scratch_remove();
}

/* A Broadcom Gen5 switch in an XML is flattened as from sysfs (NCCL: ncclTopoGetSystemFromXml). */
static void test_xml_bcm(void **state)
{
	static const char *const fmt =
		"<system version=\"1\"><cpu numaid=\"0\" arch=\"x86_64\" vendor=\"GenuineIntel\">\n"
		"<pci busid=\"0000:15:00.0\" class=\"0x060400\" vendor=\"0x1000\" device=\"%s\" "
		"subsystem_vendor=\"0x1000\" subsystem_device=\"0x0000\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
		" <pci busid=\"0000:16:00.0\" class=\"0x060400\" vendor=\"0x1000\" device=\"%s\" "
		"subsystem_vendor=\"0x1000\" subsystem_device=\"0x1000\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
		"  <pci busid=\"0000:17:00.0\" class=\"0x030200\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\"/>\n"
		" </pci>\n"
		" <pci busid=\"0000:18:00.0\" class=\"0x060400\" vendor=\"0x1000\" device=\"%s\" "
		"subsystem_vendor=\"0x1000\" subsystem_device=\"0x1000\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
		"  <pci busid=\"0000:19:00.0\" class=\"0x020700\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
		"   <nic><net name=\"mlx5_0\" dev=\"0\" speed=\"400000\" port=\"1\"/></nic>\n"
		"  </pci>\n"
		" </pci>\n"
		"</pci></cpu></system>\n";
	struct rd_gpu_topo t;
	char xml[2048], msg[200];

	(void)state;
	scratch_make();
	put("sys/module/nvidia_peermem/version", "1.0\n");
	snprintf(xml, sizeof(xml), fmt, "0xc030", "0xc030", "0xc030");
	assert_int_equal(build_xml(&t, xml, msg, sizeof(msg)), 0);
	assert_int_equal(t.gpus[0].net, 0);
	assert_int_equal(t.gpus[0].path_topo, RD_PATH_PIX);
	assert_true(t.gpus[0].gdr);
	rd_gpu_topo_free(&t);
	/* Another switch of that shape keeps its two levels. */
	snprintf(xml, sizeof(xml), fmt, "0xc010", "0xc010", "0xc010");
	assert_int_equal(build_xml(&t, xml, msg, sizeof(msg)), 0);
	assert_int_equal(t.gpus[0].path_topo, RD_PATH_PXB);
	rd_gpu_topo_free(&t);
	scratch_remove();
}

/*
 * A GPU's <pci> holding a <nic> turned the GPU's node into a NIC that the GPU
 * list still held, and a <gpu> in a NIC's <pci> the reverse (found by
 * fuzz_gpuxml): one function is one node, so either is malformed.
 */
static void test_xml_gpu_nic_one_pci(void **state)
{
	struct rd_gpu_topo t;
	char msg[200];

	(void)state;
	scratch_make();
	assert_int_equal(build_xml(&t, "<system version=\"1\"><cpu numaid=\"0\">\n"
				   "<pci busid=\"0000:01:00.0\" class=\"0x030200\">\n"
				   "<nic><net name=\"mlx5_0\" dev=\"0\"/></nic></pci></cpu></system>",
				   msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "line 3: <nic> inside a GPU's <pci>");
	rd_gpu_topo_free(&t);
	assert_int_equal(build_xml(&t, "<system version=\"1\"><cpu numaid=\"0\">\n"
				   "<pci busid=\"0000:01:00.0\" class=\"0x020000\">\n"
				   "<gpu dev=\"0\"/></pci></cpu></system>", msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "line 3: <gpu> inside a NIC's <pci>");
	rd_gpu_topo_free(&t);
	/* A <gpu> in a GPU's <pci> (as NCCL writes it) or in a bridge's makes a GPU. */
	assert_int_equal(build_xml(&t, "<system version=\"1\"><cpu numaid=\"0\">"
				   "<pci busid=\"0000:01:00.0\" class=\"0x030200\"><gpu dev=\"0\"/></pci>"
				   "<pci busid=\"0000:02:00.0\" class=\"0x060400\"><gpu dev=\"1\"/></pci>"
				   "</cpu></system>", msg, sizeof(msg)), 0);
	assert_int_equal(t.ngpus, 2);
	for (size_t g = 0; g < t.ngpus; g++)
		assert_int_equal(t.nodes[t.gpus[g].node].type, RD_TN_GPU);
	rd_gpu_topo_free(&t);
	scratch_remove();
}

/* gdr="0" on a <gpu> or a <net> of a topology file: NCCL will not use GDR there (ncclTopoCheckGdr). */
static void test_xml_gdr_unsupported(void **state)
{
	static const char *const fmt =
		"<system version=\"1\"><cpu numaid=\"0\">"
		"<pci busid=\"0000:01:00.0\" class=\"0x060400\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">"
		"<pci busid=\"0000:02:00.0\" class=\"0x030200\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">"
		"<gpu dev=\"0\" gdr=\"%s\"/></pci>"
		"<pci busid=\"0000:03:00.0\" class=\"0x020700\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">"
		"<nic><net name=\"mlx5_0\" dev=\"0\" speed=\"400000\" port=\"1\" gdr=\"%s\"/></nic>"
		"</pci></pci></cpu></system>";
	static const char *const gdr[][2] = { { "1", "1" }, { "0", "1" }, { "1", "0" }, { "0x0", "1" } };
	struct rd_gpu_topo t;
	char xml[1024], msg[200];

	(void)state;
	scratch_make();
	put("sys/module/nvidia_peermem/version", "1.0\n");
	for (size_t k = 0; k < RD_ARRAY_SIZE(gdr); k++) {
		snprintf(xml, sizeof(xml), fmt, gdr[k][0], gdr[k][1]);
		assert_int_equal(build_xml(&t, xml, msg, sizeof(msg)), 0);
		assert_int_equal(t.gpus[0].net, 0);
		assert_int_equal(t.gpus[0].path_topo, RD_PATH_PIX);
		assert_int_equal(t.gpus[0].gdr, k == 0);
		/* Without GDR NCCL goes through the CPU. */
		assert_int_equal(t.gpus[0].path, k == 0 ? RD_PATH_PIX : RD_PATH_PHB);
		if (k)
			assert_non_null(strstr(t.gpus[0].why, "does not support GDR"));
		rd_gpu_topo_free(&t);
	}
	scratch_remove();
}

/* ---- PXN and NVML's facts ---- */

static void test_pxn_rule(void **state)
{
	struct rd_nccl_conf c;
	/* GPU3 of an H100 node: PHB to a NIC whose nearest GPU is PIX to it, over NVSwitch NVLink. */
	struct rd_pxn_case p = { .gpu_type = RD_PATH_PHB, .gpu_bw = 48, .peer_type = RD_PATH_PIX,
				 .peer_bw = 48, .peer_gdr = true, .peer_link = RD_PATH_NVL };

	(void)state;
	rd_nccl_conf_init(&c);
	assert_true(rd_nccl_pxn_through(&c, &p));
	/* A path through a CPU is worse than PXN: the same bandwidth is enough. */
	p.gpu_type = RD_PATH_SYS;
	assert_true(rd_nccl_pxn_through(&c, &p));
	/* The GPU's own PXB or PIX path at equal bandwidth stays. */
	p.gpu_type = RD_PATH_PXB;
	assert_false(rd_nccl_pxn_through(&c, &p));
	/* ... unless the peer has more bandwidth to the NIC. */
	p.peer_bw = 96;
	assert_true(rd_nccl_pxn_through(&c, &p));
	p.peer_bw = 48;
	/* P2C: worse than PXB (through before 2.28), not worse than PXN (stays since). */
	p.gpu_type = RD_PATH_P2C;
	assert_false(rd_nccl_pxn_through(&c, &p));
	c.version = 227;
	assert_true(rd_nccl_pxn_through(&c, &p));
	c.version = 230;
	p.gpu_type = RD_PATH_PHB;
	/* Not joined by NVLink (NVB is one GPU between): no PXN. */
	p.peer_link = RD_PATH_NVB;
	assert_false(rd_nccl_pxn_through(&c, &p));
	p.peer_link = RD_PATH_NVL;
	/* The peer's own path must be at the PXN level: PXB, or P2C with NCCL_PXN_C2C. */
	p.peer_type = RD_PATH_PHB;
	assert_false(rd_nccl_pxn_through(&c, &p));
	p.peer_type = RD_PATH_P2C;
	assert_true(rd_nccl_pxn_through(&c, &p));
	c.pxn_c2c = 0;
	assert_false(rd_nccl_pxn_through(&c, &p));
	c.pxn_c2c = -1;
	p.peer_type = RD_PATH_PXB;
	/* 2.30 asks GDR of the peer; older releases do not. */
	p.peer_gdr = false;
	assert_false(rd_nccl_pxn_through(&c, &p));
	c.version = 229;
	assert_true(rd_nccl_pxn_through(&c, &p));
	/* NCCL_PXN_DISABLE=1. */
	c.pxn_disable = 1;
	assert_false(rd_nccl_pxn(&c));
	assert_false(rd_nccl_pxn_through(&c, &p));
}

static void test_pxn_conf(void **state)
{
	struct rd_nccl_conf c;
	char msg[160];

	(void)state;
	rd_nccl_conf_init(&c);
	assert_true(rd_nccl_pxn(&c));
	/* NCCL_PXN_C2C: none before 2.27, off by default in 2.27, on from 2.28. */
	c.version = 226;
	assert_int_equal(rd_nccl_pxn_level(&c), RD_PATH_PXB);
	c.version = 227;
	assert_int_equal(rd_nccl_pxn_level(&c), RD_PATH_PXB);
	c.version = 228;
	assert_int_equal(rd_nccl_pxn_level(&c), RD_PATH_P2C);
	assert_int_equal(rd_nccl_conf_set(&c, "NCCL_PXN_C2C", "0", "option", msg, sizeof(msg)), 0);
	assert_int_equal(rd_nccl_pxn_level(&c), RD_PATH_PXB);
	c.version = 227;
	assert_int_equal(rd_nccl_conf_set(&c, "NCCL_PXN_C2C", "1", "option", msg, sizeof(msg)), 0);
	assert_int_equal(rd_nccl_pxn_level(&c), RD_PATH_P2C);
	c.version = 226;
	assert_int_equal(rd_nccl_pxn_level(&c), RD_PATH_PXB);
	assert_int_equal(rd_nccl_conf_set(&c, "NCCL_PXN_DISABLE", "1", "environment", msg, sizeof(msg)), 0);
	assert_false(rd_nccl_pxn(&c));
	assert_string_equal(c.src_pxn_disable, "environment");
	assert_int_equal(rd_nccl_conf_set(&c, "NCCL_PXN_DISABLE", "yes", "option", msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "NCCL_PXN_DISABLE"));
}

static void test_nvml_use(void **state)
{
	enum rd_nvml_use u = RD_NVML_NEVER;

	(void)state;
	assert_int_equal(rd_nvml_use_parse("auto", &u), 0);
	assert_int_equal(u, RD_NVML_AUTO);
	assert_int_equal(rd_nvml_use_parse("always", &u), 0);
	assert_int_equal(u, RD_NVML_ALWAYS);
	assert_int_equal(rd_nvml_use_parse("never", &u), 0);
	assert_int_equal(u, RD_NVML_NEVER);
	assert_int_equal(rd_nvml_use_parse("Always", &u), -EINVAL);
	assert_int_equal(rd_nvml_use_parse("", &u), -EINVAL);
	assert_string_equal(rd_nvl_remote_name(RD_NVL_SWITCH), "nvswitch");
	assert_string_equal(rd_nvl_remote_name((enum rd_nvl_remote)9), "unknown");
}

/*
 * Two GPUs on root ports of one host bridge, the NIC behind GPU0's switch:
 * without NVML GPU1 is PHB to it; NVML's NVLink between them (GPU0 naming
 * GPU1, GPU1 an untyped end at GPU0's address) makes GPU1's path PXN
 * through GPU0, their GPU path NVL, and NVML's C2C "off" clears nothing.
 */
static void pxn_tree(void)
{
	switched_pair();
	bridge("pci0000:00/0000:00:02.0", 0);
	gpu_fn("pci0000:00/0000:00:02.0/0000:05:00.0", 0);
	put("sys/module/nvidia_peermem/version", "1.0\n");
}

static void build_nvml(struct rd_gpu_topo *t, const struct rd_nvml *nvml, struct rd_nccl_conf *conf)
{
	static struct rd_sysroot sr;
	static struct one_nic nic;
	struct rd_warnings w = { 0 };
	char msg[200];

	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);
	one_nic(&nic, "mlx5_0", "0000:04:00.0");
	assert_int_equal(rd_gpu_topo_build_nvml(&sr, &nic.list, conf, NULL, nvml, t, &w, msg, sizeof(msg)), 0);
	rd_warnings_free(&w);
	assert_int_equal(t->ngpus, 2);
}

static void test_nvml_pxn(void **state)
{
	static struct rd_nvml_link l0[4] = {
		{ 0, RD_NVL_GPU, "0000:05:00.0" }, { 1, RD_NVL_GPU, "0000:05:00.0" },
		{ 2, RD_NVL_GPU, "0000:05:00.0" }, { 3, RD_NVL_GPU, "0000:05:00.0" },
	};
	static struct rd_nvml_link l1[4] = {
		{ 0, RD_NVL_UNKNOWN, "0000:03:00.0" }, { 1, RD_NVL_UNKNOWN, "0000:03:00.0" },
		{ 2, RD_NVL_UNKNOWN, "0000:03:00.0" }, { 3, RD_NVL_UNKNOWN, "0000:03:00.0" },
	};
	struct rd_nvml_gpu g[2] = {
		{ .bdf = "0000:03:00.0", .cc = 90, .c2c = 0, .links = l0, .nlinks = 4 },
		{ .bdf = "0000:05:00.0", .cc = 90, .c2c = 0, .links = l1, .nlinks = 4 },
	};
	struct rd_nvml nvml = { .loaded = true, .nvlink = true, .c2c = true, .gpus = g, .ngpus = 2 };
	struct rd_nccl_conf conf;
	struct rd_gpu_topo t;

	(void)state;
	scratch_make();
	pxn_tree();
	rd_nccl_conf_init(&conf);
	build_nvml(&t, NULL, &conf);
	assert_int_equal(t.gpus[1].path_topo, RD_PATH_PHB);
	assert_int_equal(t.gpus[1].pxn_via, -1);
	assert_string_equal(t.nvlink_src, "none");
	rd_gpu_topo_free(&t);

	build_nvml(&t, &nvml, &conf);
	assert_string_equal(t.nvlink_src, "nvml");
	assert_string_equal(t.c2c_src, "nvml");
	assert_int_equal(rd_gpu_path(&t, t.gpus[0].node, t.gpus[1].node)->type, RD_PATH_NVL);
	assert_int_equal(t.gpus[0].nnvl, 1);
	assert_string_equal(t.gpus[0].nvl[0].to, "GPU1");
	assert_int_equal(t.gpus[0].nvl[0].links, 4);
	assert_true(t.gpus[0].nvl[0].bw > 82.3 && t.gpus[0].nvl[0].bw < 82.5);	/* 4 x 20.6 */
	assert_string_equal(t.gpus[1].nvl[0].to, "GPU0");	/* untyped, but a GPU's address */
	assert_int_equal(t.gpus[0].path_topo, RD_PATH_PIX);
	assert_int_equal(t.gpus[1].path_topo, RD_PATH_PXN);
	assert_int_equal(t.gpus[1].pxn_via, 0);
	assert_true(t.gpus[1].gdr);
	assert_true(t.gpus[1].bw == 48.0);
	assert_non_null(strstr(t.gpus[1].why, "over NVLink to GPU0"));
	rd_gpu_topo_free(&t);

	/* NCCL_PXN_DISABLE=1: back to PHB; NVLink stays. */
	conf.pxn_disable = 1;
	build_nvml(&t, &nvml, &conf);
	assert_int_equal(t.gpus[1].path_topo, RD_PATH_PHB);
	assert_int_equal(rd_gpu_path(&t, t.gpus[1].node, t.gpus[0].node)->type, RD_PATH_NVL);
	rd_gpu_topo_free(&t);
	scratch_remove();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_acs_walk),
		cmocka_unit_test(test_acs_bits),
		cmocka_unit_test(test_speed_gts),
		cmocka_unit_test(test_bar_size),
		cmocka_unit_test(test_ats_walk),
		cmocka_unit_test(test_path_parse),
		cmocka_unit_test(test_hca_match),
		cmocka_unit_test(test_hca_match_empty_names),
		cmocka_unit_test(test_version_parse),
		cmocka_unit_test(test_gdr_defaults),
		cmocka_unit_test(test_conf_set),
		cmocka_unit_test(test_path_pix),
		cmocka_unit_test(test_path_pxb),
		cmocka_unit_test(test_path_phb),
		cmocka_unit_test(test_vm_view),
		cmocka_unit_test(test_path_sys),
		cmocka_unit_test(test_path_bcm),
		cmocka_unit_test(test_xml_nic_outside_cpu),
		cmocka_unit_test(test_xml_no_gpu),
		cmocka_unit_test(test_xml_bcm),
		cmocka_unit_test(test_xml_gpu_nic_one_pci),
		cmocka_unit_test(test_xml_gdr_unsupported),
		cmocka_unit_test(test_pxn_rule),
		cmocka_unit_test(test_pxn_conf),
		cmocka_unit_test(test_nvml_use),
		cmocka_unit_test(test_nvml_pxn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
